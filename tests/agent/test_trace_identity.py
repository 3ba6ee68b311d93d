"""Trial identity across a trace (harborlight/agent/identity.py): a span with no identity of its own is of its
trace's trial, and a trace's session.id on any of its spans names that trial, for every reader.

The producers are real: Harbor's own ATIF-to-OTel converter (harbor-atif2otel, as `harbor traces export
--format otel` runs it) on a trajectory written with Harbor's models, which puts `session.id` on the
root AGENT span of the trial's trace only; and the OpenTelemetry SDK, exporting a child span that carries
the session before the root that does not. The converter's spans are sent as it made them; only the job
name is added to their resource, as an OpenTelemetry Collector's resource processor in front would.
"""

import json

import httpx
import pytest
from harbor.models.trajectories import Trajectory
from harbor_atif2otel.export import export_trial
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.proto.common.v1.common_pb2 import AnyValue, KeyValue
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor

from tests.agent.otlp_build import post
from tests.importers.harbor_job import trajectory

# The trajectory's calls (tests/importers/harbor_job.py, with its sub-agent): the trial's and the sub-agent's.
N_MODEL_CALLS, N_TOOL_CALLS, INPUT_TOKENS = 4, 4, 1200 + 1500 + 300 + 1400


def _get(server, path: str, **params) -> dict:
    reply = httpx.get(f"{server.http_url}{path}", params=params, timeout=60)
    assert reply.status_code == 200, reply.text
    return reply.json()


def _converted(tmp_path, session: str, job: str) -> ExportTraceServiceRequest:
    """The converter's output for one trial directory, its resource given the job name."""
    trial_dir = tmp_path / f"hello-world__{session}"
    (trial_dir / "agent").mkdir(parents=True)
    document = trajectory(20, with_subagent=True).model_copy(update={"session_id": session}).to_json_dict()
    (trial_dir / "agent" / "trajectory.json").write_text(json.dumps(document))
    spans = export_trial(trial_dir)
    spans.resource.attributes.append(KeyValue(key="harbor.job.name", value=AnyValue(string_value=job)))
    return ExportTraceServiceRequest(resource_spans=[spans])


def _send(server, request: ExportTraceServiceRequest) -> None:
    post(server, "/v1/traces", request.SerializeToString())


@pytest.fixture(scope="module")
def converted_trial(server, tmp_path_factory):
    """(job, session, trace id) of one trial converted by harbor-atif2otel and sent as it comes out."""
    import uuid

    unique = uuid.uuid4().hex[:12]
    job, session = f"atif-{unique}", f"sess-{unique}"
    request = _converted(tmp_path_factory.mktemp("atif"), session, job)
    _send(server, request)
    return job, session, request.resource_spans[0].scope_spans[0].spans[0].trace_id.hex()


def test_the_converters_spans_are_all_of_the_trial_its_root_names(server, converted_trial):
    job, session, trace_id = converted_trial
    spans = _get(server, "/api/spans", trial=session, limit=1000)["items"]
    assert {s["trial"] for s in spans} == {session} and len(spans) == len(_get(server, "/api/spans", job=job)["items"])
    assert sum(s["kind"] == "llm_request" for s in spans) == N_MODEL_CALLS
    assert _get(server, "/api/spans", trial=trace_id)["items"] == []  # the trace id names no trial of its own
    tree = _get(server, f"/api/trials/{session}/trace")
    (root,) = tree["roots"]
    assert (root["kind"], tree["orphans"], tree["events"]) == ("session", 0, len(spans))


def test_the_trial_row_behaviour_and_job_count_the_whole_trace(server, converted_trial):
    job, session, _ = converted_trial
    (row,) = _get(server, f"/api/jobs/{job}/trials")["items"]
    assert row["trial"] == session
    assert (row["n_steps"]["value"], row["n_tool_calls"]["value"], row["n_input_tokens"]["value"]) == (
        N_MODEL_CALLS,
        N_TOOL_CALLS,
        INPUT_TOKENS,
    )
    behavior = _get(server, f"/api/trials/{session}/behavior")
    assert (behavior["n_model_calls"], behavior["n_calls"]) == (N_MODEL_CALLS, N_TOOL_CALLS)


def test_the_trajectory_has_every_step_of_the_trace(server, converted_trial):
    _, session, _ = converted_trial
    reply = httpx.get(f"{server.http_url}/api/trials/{session}/trajectory", timeout=60)
    assert reply.status_code == 200, reply.text
    built = Trajectory.model_validate_json(reply.text)
    calls = [c.function_name for s in built.steps for c in s.tool_calls or []]  # the converter keeps no call ids
    assert calls == ["Read", "Bash", "Task", "Edit"]
    (sub,) = built.subagent_trajectories
    assert [s.message for s in sub.steps if s.source == "agent"] == ["f is used in main.py"]


def test_children_exported_before_their_root_are_named_once_it_arrives(server, tmp_path, unique):
    """A live exporter sends a span when it ends: the root AGENT span, which carries the session, comes last."""
    job, session = f"atif-{unique}", f"sess-{unique}"
    request = _converted(tmp_path, session, job)
    spans = request.resource_spans[0].scope_spans[0].spans
    root = next(s for s in spans if not s.parent_span_id)
    children, last = ExportTraceServiceRequest(), ExportTraceServiceRequest()
    for part, keep in ((children, lambda s: s is not root), (last, lambda s: s is root)):
        rs = part.resource_spans.add()
        rs.resource.CopyFrom(request.resource_spans[0].resource)
        scope = rs.scope_spans.add()
        scope.scope.CopyFrom(request.resource_spans[0].scope_spans[0].scope)
        scope.spans.extend(s for s in spans if keep(s))
    _send(server, children)
    assert _get(server, "/api/spans", trial=session)["items"] == []
    _send(server, last)
    assert len(_get(server, "/api/spans", trial=session, limit=1000)["items"]) == len(
        _get(server, "/api/spans", job=job, limit=1000)["items"]
    )
    assert [r["trial"] for r in _get(server, f"/api/jobs/{job}/trials")["items"]] == [session]


def test_a_session_id_on_a_child_span_names_the_trial_of_the_whole_trace(server, unique):
    """The OpenTelemetry SDK, for real: the session is set on one model-call span, not on the root."""
    provider = TracerProvider(
        resource=Resource.create({"service.name": f"agent-{unique}", "harbor.job.name": f"job-{unique}"})
    )
    provider.add_span_processor(SimpleSpanProcessor(OTLPSpanExporter(endpoint=f"{server.http_url}/v1/traces")))
    tracer = provider.get_tracer("my-agent")
    with tracer.start_as_current_span("invoke_agent solver", attributes={"gen_ai.operation.name": "invoke_agent"}):
        with tracer.start_as_current_span(
            "chat gpt-4.1",
            attributes={
                "gen_ai.operation.name": "chat",
                "gen_ai.request.model": "gpt-4.1",
                "gen_ai.usage.input_tokens": 10,
                "session.id": f"s-{unique}",
            },
        ):
            pass
        with tracer.start_as_current_span(
            "execute_tool read_file",
            attributes={"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "read_file"},
        ):
            pass
    provider.shutdown()
    spans = _get(server, "/api/spans", trial=f"s-{unique}")["items"]
    assert sorted(s["kind"] for s in spans) == ["llm_request", "session", "tool"]
    (row,) = _get(server, f"/api/jobs/job-{unique}/trials")["items"]
    assert (row["trial"], row["n_steps"]["value"], row["n_tool_calls"]["value"]) == (f"s-{unique}", 1, 1)
