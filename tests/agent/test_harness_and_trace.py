"""The lifecycle spans harborlight/harbor/harness/ emits, the trial trace API (orphans, late spans, timing quality),
and GET /api/spans filters over agent events."""

import httpx
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter

from harborlight.harbor.harness import TrialIdentity, trial_spans
from harborlight.harbor.harness.lifecycle import tracer_provider
from tests.agent.otlp_build import Traces


def test_harness_helper_emits_lifecycle_spans_with_identity_rewards_and_exceptions(server, unique):
    identity = TrialIdentity(
        job=f"job-{unique}",
        trial=f"trial-{unique}",
        task="hello-world",
        attempt=1,
        agent="claude-code",
        model="claude-sonnet-4-5",
        n_planned_trials=3,
        service=f"harness-{unique}",
    )
    provider = tracer_provider(identity, OTLPSpanExporter(endpoint=f"{server.http_url}/v1/traces"))
    with trial_spans(identity, provider) as trial:
        with trial.phase("environment_setup"):
            pass
        with trial.phase("agent_setup"):
            pass
        try:
            with trial.phase("agent_execution") as execution:
                env = trial.traceparent(execution)
                raise TimeoutError("agent exceeded 600 s")
        except TimeoutError:
            pass
        with trial.verifier() as verifier:
            verifier.reward("reward", 1.0)
    provider.shutdown()

    assert env["TRACEPARENT"].startswith("00-")
    rows = server.sql(
        "SELECT SpanName, SpanAttributes, `Events.Name`, `Events.Attributes`, ResourceAttributes FROM otel_traces "
        "WHERE ServiceName = {s:String} ORDER BY Timestamp",
        s=f"harness-{unique}",
    )
    assert [r[0] for r in rows] == [
        "harbor.trial",
        "harbor.environment_setup",
        "harbor.agent_setup",
        "harbor.agent_execution",
        "harbor.verifier",
    ]
    assert float(rows[4][1]["harbor.reward.reward"]) == 1.0
    assert rows[3][2] == ["exception"] and rows[3][3][0]["exception.type"] == "TimeoutError"
    assert rows[0][4]["harbor.trial.name"] == f"trial-{unique}" and rows[0][4]["harbor.attempt"] == "1"

    tree = httpx.get(f"{server.http_url}/api/trials/trial-{unique}/trace").json()
    (root,) = tree["roots"]
    assert root["kind"] == "session" and root["event"]["job"] == f"job-{unique}"
    assert [c["event"]["name"] for c in root["children"]] == [
        "harbor.environment_setup",
        "harbor.agent_setup",
        "harbor.agent_execution",
        "harbor.verifier",
    ]
    execution_node = root["children"][2]["event"]
    assert execution_node["success"] is False and execution_node["timing"] == "measured"

    # The planned trial count the harness gave reaches the job's metrics (one trial of three so far).
    job = httpx.get(f"{server.http_url}/api/jobs/job-{unique}").json()
    assert job["n_planned"] == {"value": 3, "provenance": "measured", "note": None} and job["n_trials"]["value"] == 1


def test_trace_keeps_orphans_and_accepts_late_parents(server, unique):
    trial = f"trial-{unique}"
    late = Traces({"service.name": unique, "harbor.trial.name": trial})
    parent_id = b"\x07" * 8
    # The tool span and the sub-agent under it arrive before their parent, the agent's root.
    tool = late.span(
        "execute_tool Task",
        {"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "Task", "gen_ai.tool.call.id": "x"},
        parent=parent_id,
        start_ms=5,
    )
    late.span("invoke_agent helper", {"gen_ai.operation.name": "invoke_agent"}, parent=tool, start_ms=6)
    late.send(server)

    first = httpx.get(f"{server.http_url}/api/trials/{trial}/trace").json()
    assert first["orphans"] == 1
    (orphan,) = first["roots"]
    assert orphan["orphan"] is True and orphan["children"][0]["kind"] == "subagent"

    root = Traces({"service.name": unique, "harbor.trial.name": trial}, trace_id=late.trace_id)
    root.span("invoke_agent main", {"gen_ai.operation.name": "invoke_agent"}, span_id=parent_id, dur_ms=100)
    root.send(server)
    second = httpx.get(f"{server.http_url}/api/trials/{trial}/trace").json()
    assert second["orphans"] == 0
    (main,) = second["roots"]
    assert main["kind"] == "session" and main["children"][0]["event"]["tool"]["call_id"] == "x"

    assert httpx.get(f"{server.http_url}/api/trials/no-such-{unique}/trace").status_code == 404


def test_spans_api_filters_by_kind_status_category_and_pages(server, unique):
    traces = Traces({"service.name": unique, "harbor.job.name": f"job-{unique}"})
    for i in range(3):
        traces.span(
            f"chat m{i}",
            {
                "gen_ai.operation.name": "chat",
                "gen_ai.request.model": "m",
                "http.response.status_code": 429 if i == 1 else 200,
            },
            start_ms=i,
        )
    traces.span("execute_tool Grep", {"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "Grep"}, start_ms=10)
    traces.send(server)
    url = f"{server.http_url}/api/spans"

    limited = httpx.get(url, params={"job": f"job-{unique}", "status": "429"}).json()["items"]
    assert [(e["name"], e["http_status"]) for e in limited] == [("chat m1", 429)]
    searches = httpx.get(url, params={"job": f"job-{unique}", "tool_category": "search"}).json()["items"]
    assert [e["tool"]["name"] for e in searches] == ["Grep"]
    page1 = httpx.get(url, params={"job": f"job-{unique}", "kind": "llm_request", "limit": 2}).json()
    page2 = httpx.get(
        url, params={"job": f"job-{unique}", "kind": "llm_request", "limit": 2, "cursor": page1["next_cursor"]}
    ).json()
    assert [e["name"] for e in page1["items"] + page2["items"]] == ["chat m0", "chat m1", "chat m2"]
    assert page2["next_cursor"] is None
    assert page1["items"][0]["tokens"] == {
        "input": None,
        "cached": None,
        "cache_write": None,
        "output": None,
        "reasoning": None,
    }
    assert httpx.get(url, params={"kind": "banana"}).status_code == 400


def test_trace_of_a_trial_name_in_two_jobs_is_one_jobs_when_asked(server, unique):
    trial = f"trial-{unique}"
    for job, model in (("a", "model-a"), ("b", "model-b")):
        traces = Traces({"service.name": unique, "harbor.job.name": f"{job}-{unique}", "harbor.trial.name": trial})
        traces.span("chat", {"gen_ai.operation.name": "chat", "gen_ai.request.model": model})
        traces.send(server)
    url = f"{server.http_url}/api/trials/{trial}/trace"

    def models(**params) -> list[str]:
        reply = httpx.get(url, params=params)
        assert reply.status_code == 200, reply.text
        return sorted(node["event"]["model"] for node in reply.json()["roots"])

    assert models() == ["model-a", "model-b"]
    assert models(job=f"a-{unique}") == ["model-a"]
    missing = httpx.get(url, params={"job": f"c-{unique}"})
    assert (missing.status_code, missing.json()["detail"]) == (
        404,
        f"no agent events for trial {trial!r} in job 'c-{unique}'",
    )
