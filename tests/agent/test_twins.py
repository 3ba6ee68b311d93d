"""A trial whose agent streams both spans and log events counts each model call and tool call once
(harborlight/agent/twins.py): in its trial row, behaviour, /api/spans, its trace and its Harbor export.
Within a trial, service and kind, a span and a log event that pair (by call id, by request id, or by
time order when neither tells ids and both signals have as many rows) are one call: the record of the
signal with more rows is kept (the span on a tie) and takes what only its twin carried (Claude Code's
cost, a tool's outcome). Records that pair with nothing are calls of their own, and so are records of two
tenants."""

import json

import httpx
import pytest
from harbor.models.trajectories import Trajectory
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter

from harborlight.harbor.harness import TrialIdentity, trial_spans
from harborlight.harbor.harness.lifecycle import tracer_provider
from harborlight.settings import Settings
from tests.agent.otlp_build import MS, T0, Logs, Traces
from tests.importers.cli import run
from tests.importers.exported import validate_job
from tests.support.servers import InProcessServer

TRACER, LOGGER = "com.anthropic.claude_code.tracing", "com.anthropic.claude_code.events"

# Claude Code's model calls: (start ms, duration ms, HTTP status, raw input, cache read, cache write, output,
# cost, sub-agent's). The third is the sub-agent's, made under the Task tool call.
MODEL = (
    (100, 500, 429, None, None, None, None, None, False),
    (1000, 2000, 200, 12, 9000, 1500, 340, 0.0421, False),
    (3300, 1000, 200, 40, 2000, 0, 120, 0.0035, True),
    (9300, 1500, 200, 25, 10000, 500, 60, 0.0110, False),
)
# Its tool calls: (tool_use_id, tool, start ms, duration ms, success). Grep is the sub-agent's.
TOOLS = (
    ("toolu_01", "Read", 3100, 50, True),
    ("toolu_02", "Task", 3200, 6000, True),
    ("toolu_03", "Grep", 4400, 100, False),
)
N_MODEL, N_TOOLS, N_LIMITED = len(MODEL), len(TOOLS), 1
INPUT = sum(c[3] + c[4] + c[5] for c in MODEL if c[3] is not None)  # Claude Code's events leave the cache out
CACHED = sum(c[4] for c in MODEL if c[4] is not None)
OUTPUT = sum(c[6] for c in MODEL if c[6] is not None)
COST = sum(c[7] for c in MODEL if c[7] is not None)


def _claude_code(
    resource: dict,
    spans: bool = True,
    logs: bool = True,
    lost_spans: tuple[int, ...] = (),
    lost_events: tuple[int, ...] = (),
    request_ids: bool = True,
) -> tuple[Traces, Logs]:
    """One Claude Code session as spans (beta tracing) and as log events; `lost_*`: indexes of MODEL
    whose span or event never arrived. request_ids=False: a model call's records omit `request_id`."""
    traces = Traces({**resource, "service.name": "claude-code"}, scope=TRACER)
    events = Logs({**resource, "service.name": "claude-code"}, scope=LOGGER)
    common = {"session.id": "sess-1", "gen_ai.conversation.id": "sess-1"}

    def emit(name: str, at_ms: int, **attrs) -> None:
        events.event({**common, "event.name": name, **attrs}, at_ms=at_ms, body=f"claude_code.{name}")

    turn = traces.span(
        "claude_code.interaction",
        {**common, "gen_ai.operation.name": "invoke_agent", "user_prompt": "Fix the failing test"},
        dur_ms=12_000,
    )
    emit("user_prompt", 0, prompt="Fix the failing test", prompt_length="20")
    task = traces.span(
        "claude_code.tool",
        {**common, "tool_name": "Task", "tool_use_id": "toolu_02", "gen_ai.operation.name": "execute_tool"},
        parent=turn,
        start_ms=3200,
        dur_ms=6000,
    )
    for tool_use_id, name, start, dur, success in TOOLS:
        if name != "Task":
            traces.span(
                "claude_code.tool",
                {**common, "tool_name": name, "tool_use_id": tool_use_id, "gen_ai.operation.name": "execute_tool"},
                parent=task if name == "Grep" else turn,
                start_ms=start,
                dur_ms=dur,
            )
        emit(
            "tool_result",
            start + dur,
            tool_name=name,
            tool_use_id=tool_use_id,
            success="true" if success else "false",
            duration_ms=str(dur),
        )
    emit("tool_decision", 3090, tool_name="Read", tool_use_id="toolu_01", decision="accept", source="config")
    for i, (start, dur, status, raw, read, write, out, cost, sub) in enumerate(MODEL):
        request = {"request_id": f"req_{i}"} if request_ids else {}
        attrs = {
            **common,
            "model": "claude-sonnet-4-5",
            "gen_ai.operation.name": "chat",
            "status_code": status,
            **request,
        }
        if status == 200:
            tokens = {
                "input_tokens": raw,
                "output_tokens": out,
                "cache_read_tokens": read,
                "cache_creation_tokens": write,
            }
            if i not in lost_spans:
                traces.span(
                    "claude_code.llm_request",
                    {
                        **attrs,
                        **tokens,
                        "gen_ai.usage.input_tokens": raw + read + write,
                        "success": True,
                        "gen_ai.usage.output_tokens": out,
                        "gen_ai.usage.cache_read.input_tokens": read,
                        "gen_ai.usage.cache_write.input_tokens": write,
                    },
                    parent=task if sub else turn,
                    start_ms=start,
                    dur_ms=dur,
                )
            if i not in lost_events:
                emit(
                    "api_request",
                    start + dur,
                    **tokens,
                    model="claude-sonnet-4-5",
                    cost_usd=cost,
                    duration_ms=dur,
                    **request,
                )
        else:
            if i not in lost_spans:
                traces.span(
                    "claude_code.llm_request",
                    {**attrs, "success": False, "error": "rate_limit_error"},
                    parent=turn,
                    start_ms=start,
                    dur_ms=dur,
                    error="rate_limit_error",
                )
            if i not in lost_events:
                emit(
                    "api_error",
                    start + dur,
                    model="claude-sonnet-4-5",
                    error="rate_limit_error",
                    status_code=status,
                    duration_ms=dur,
                    **request,
                )
    emit("assistant_response", 10_900, response="Fixed the off-by-one.", model="claude-sonnet-4-5")
    return traces if spans else None, events if logs else None


def _send(server, *payloads) -> None:
    for payload in payloads:
        if payload is not None:
            payload.send(server)


def _get(server, path: str, **params) -> dict:
    reply = httpx.get(f"{server.http_url}{path}", params=params)  # patient: reads wait for the keeper
    assert reply.status_code == 200, reply.text
    return reply.json()


def _value(row: dict, field: str):
    return row[field]["value"]


def _counts(server, trial: str) -> tuple:
    """(n_steps, n_tool_calls, n_rate_limited_retries) of the trial row, (model calls, tool calls) of
    its behaviour."""
    row = _get(server, f"/api/trials/{trial}")
    behavior = _get(server, f"/api/trials/{trial}/behavior")
    return (_value(row, "n_steps"), _value(row, "n_tool_calls"), behavior["n_model_calls"], behavior["n_calls"])


def _nodes(tree: dict) -> list[dict]:
    found, todo = [], list(tree["roots"])
    while todo:
        node = todo.pop()
        found.append(node)
        todo += node["children"]
    return found


def _stream_harness(server, identity: TrialIdentity) -> None:
    provider = tracer_provider(identity, OTLPSpanExporter(endpoint=f"{server.http_url}/v1/traces"))
    with trial_spans(identity, provider, start_time=T0 - 5000 * MS, end_time=T0 + 30_000 * MS) as spans:
        with spans.phase("agent_execution", T0 - 100 * MS, T0 + 12_000 * MS):
            pass
        with spans.verifier(T0 + 13_000 * MS, T0 + 20_000 * MS) as verifier:
            verifier.reward("reward", 1.0)
    provider.shutdown()


@pytest.fixture(scope="module")
def claude_trial(server):
    """A finished Claude Code trial that streamed spans and log events, with its harness spans."""
    import uuid

    unique = uuid.uuid4().hex[:12]
    identity = TrialIdentity(
        job=f"twins-{unique}",
        trial=f"fix-bug__{unique}",
        task="fix-bug",
        attempt=1,
        agent="claude-code",
        agent_version="2.1.332",
        model="anthropic/claude-sonnet-4-5",
    )
    _stream_harness(server, identity)
    _send(server, *_claude_code(identity.resource_attributes()))
    return identity


def test_a_claude_code_trial_streamed_as_spans_and_events_counts_each_call_once(server, claude_trial):
    trial = claude_trial.trial
    assert _counts(server, trial) == (N_MODEL - N_LIMITED, N_TOOLS, N_MODEL, N_TOOLS)
    row = _get(server, f"/api/trials/{trial}")
    assert _value(row, "n_rate_limited_retries") == N_LIMITED
    assert (_value(row, "n_input_tokens"), _value(row, "n_cache_tokens"), _value(row, "n_output_tokens")) == (
        INPUT,
        CACHED,
        OUTPUT,
    )  # one signal's totals
    assert _value(row, "cost_usd") == pytest.approx(COST)  # only the events carry cost
    job = _get(server, f"/api/jobs/{claude_trial.job}")
    assert _value(job, "total_input_tokens") == INPUT and _value(job, "total_cost_usd") == pytest.approx(COST)


def test_api_spans_lists_each_call_once_with_what_only_its_event_carried(server, claude_trial):
    tools = _get(server, "/api/spans", trial=claude_trial.trial, kind="tool")["items"]
    assert sorted(t["tool"]["call_id"] for t in tools) == ["toolu_01", "toolu_02", "toolu_03"]
    assert {t["source"] for t in tools} == {"otel_traces"}  # a tie keeps the spans
    by_id = {t["tool"]["call_id"]: t for t in tools}
    # The spans only ended; the events say how each call went (matched by tool_use_id).
    assert [by_id[i]["success"] for i in ("toolu_01", "toolu_02", "toolu_03")] == [True, True, False]
    assert by_id["toolu_03"]["provenance"]["success"] == "measured"
    assert by_id["toolu_01"]["decision"]["decision"] == "accept"
    calls = _get(server, "/api/spans", trial=claude_trial.trial, kind="llm_request")["items"]
    # Per call, by time order (as many spans as events): each span has its own event's cost.
    assert [c["cost_usd"] for c in calls] == pytest.approx([c[7] for c in MODEL])
    assert [c["http_status"] for c in calls] == [c[2] for c in MODEL]
    ok = _get(server, "/api/spans", trial=claude_trial.trial, kind="llm_request", status="ok")["items"]
    assert len(ok) == N_MODEL - N_LIMITED  # filters apply after twins are resolved


def test_the_trial_trace_keeps_the_span_tree_with_each_call_once(server, claude_trial):
    tree = _get(server, f"/api/trials/{claude_trial.trial}/trace")
    nodes = _nodes(tree)
    assert sum(n["kind"] == "llm_request" for n in nodes) == N_MODEL
    assert sum(n["kind"] == "tool" for n in nodes) == N_TOOLS
    assert sum(n["kind"] == "user_message" for n in nodes) == 1  # the prompt the turn span carried, once
    task = next(n for n in nodes if n["kind"] == "tool" and n["event"]["tool"]["name"] == "Task")
    # The sub-agent's calls stay under the Task tool span that started it.
    assert sorted((c["kind"], c["event"]["source"]) for c in task["children"]) == [
        ("llm_request", "otel_traces"),
        ("tool", "otel_traces"),
    ]
    assert tree["orphans"] == 0


def test_the_harbor_export_has_each_step_once(server, claude_trial, tmp_path, capsys):
    out = tmp_path / "jobs"
    code, _, err = run(capsys, "export-job", claude_trial.job, "--out", str(out), "--server", server.http_url)
    assert code == 0, err
    result = validate_job(out / claude_trial.job)[claude_trial.trial]
    assert (
        result.agent_result.n_input_tokens,
        result.agent_result.n_cache_tokens,
        result.agent_result.n_output_tokens,
    ) == (INPUT, CACHED, OUTPUT)
    assert result.agent_result.cost_usd == pytest.approx(COST)
    trial_dir = out / claude_trial.job / claude_trial.trial
    trajectory = Trajectory.model_validate_json((trial_dir / "agent" / "trajectory.json").read_text())
    steps = [(s.source, [c.tool_call_id for c in s.tool_calls or []]) for s in trajectory.steps]
    assert steps == [("user", []), ("agent", ["toolu_01", "toolu_02"]), ("agent", [])]
    assert [s.metrics.cost_usd for s in trajectory.steps[1:]] == pytest.approx([0.0421, 0.0110])
    assert trajectory.steps[2].message == "Fixed the off-by-one."  # the response event fills the last step
    (sub,) = trajectory.subagent_trajectories
    assert [[c.tool_call_id for c in s.tool_calls or []] for s in sub.steps] == [["toolu_03"]]
    assert sub.steps[0].metrics.cost_usd == pytest.approx(0.0035)
    gateway = [json.loads(line) for line in (trial_dir / "agent" / "gateway.log").read_text().splitlines()]
    assert [g["status"] for g in gateway] == [429, 200, 200, 200]


def test_when_logs_lost_an_event_the_spans_win_and_each_takes_its_own_events_cost(server, unique):
    trial = f"lossy-logs-{unique}"
    _send(server, *_claude_code({"harbor.job.name": f"job-{unique}", "harbor.trial.name": trial}, lost_events=(3,)))
    assert _counts(server, trial) == (N_MODEL - N_LIMITED, N_TOOLS, N_MODEL, N_TOOLS)
    row = _get(server, f"/api/trials/{trial}")
    assert _value(row, "n_input_tokens") == INPUT  # the spans' totals: the complete signal
    assert _value(row, "cost_usd") == pytest.approx(COST - MODEL[3][7])  # the cost the events did report
    calls = _get(server, "/api/spans", trial=trial, kind="llm_request")["items"]
    assert {c["source"] for c in calls} == {"otel_traces"}
    # A span and its event share the request id: each call has its own cost.
    assert [(c["request_id"], c["cost_usd"]) for c in calls] == [
        (f"req_{i}", None if i == 3 else MODEL[i][7]) for i in range(N_MODEL)
    ]


def test_without_ids_and_with_an_event_lost_nothing_is_proven_the_same_call(server, unique):
    """4 model-call spans and 3 events, none with a request id: which event tells which span's call is
    not known, so every record counts as a call of its own, and no span takes a cost it may not have had."""
    trial = f"lossy-logs-no-ids-{unique}"
    _send(
        server,
        *_claude_code(
            {"harbor.job.name": f"job-{unique}", "harbor.trial.name": trial}, lost_events=(3,), request_ids=False
        ),
    )
    calls = _get(server, "/api/spans", trial=trial, kind="llm_request")["items"]
    assert sorted(c["source"] for c in calls) == ["otel_logs"] * 3 + ["otel_traces"] * 4
    assert [c["cost_usd"] for c in calls if c["source"] == "otel_traces"] == [None] * N_MODEL
    assert _counts(server, trial)[2] == N_MODEL + N_MODEL - 1
    assert len(_get(server, "/api/spans", trial=trial, kind="tool")["items"]) == N_TOOLS  # their ids pair


def test_when_spans_were_lost_the_events_win(server, unique):
    trial = f"lossy-spans-{unique}"
    _send(server, *_claude_code({"harbor.job.name": f"job-{unique}", "harbor.trial.name": trial}, lost_spans=(1, 2)))
    assert _counts(server, trial) == (N_MODEL - N_LIMITED, N_TOOLS, N_MODEL, N_TOOLS)
    row = _get(server, f"/api/trials/{trial}")
    assert (_value(row, "n_input_tokens"), _value(row, "cost_usd")) == (INPUT, pytest.approx(COST))
    calls = _get(server, "/api/spans", trial=trial, kind="llm_request")["items"]
    assert {c["source"] for c in calls} == {"otel_logs"}  # of each pair, the signal with more rows
    tools = _get(server, "/api/spans", trial=trial, kind="tool")["items"]
    assert len(tools) == N_TOOLS and {t["source"] for t in tools} == {"otel_traces"}  # a tie: the spans


def test_twins_are_per_trial_a_spans_only_and_a_logs_only_trial_of_one_job_keep_all_their_calls(server, unique):
    job = f"job-{unique}"
    spans_only, logs_only, both = (f"{name}-{unique}" for name in ("spans", "logs", "both"))
    _send(server, *_claude_code({"harbor.job.name": job, "harbor.trial.name": spans_only}, logs=False))
    _send(server, *_claude_code({"harbor.job.name": job, "harbor.trial.name": logs_only}, spans=False))
    _send(server, *_claude_code({"harbor.job.name": job, "harbor.trial.name": both}))
    for trial in (spans_only, logs_only, both):
        assert _counts(server, trial) == (N_MODEL - N_LIMITED, N_TOOLS, N_MODEL, N_TOOLS)
        assert len(_get(server, "/api/spans", trial=trial, kind="tool")["items"]) == N_TOOLS
    assert len(_get(server, "/api/spans", job=job, kind="tool")["items"]) == 3 * N_TOOLS
    rows = {r["trial"]: r for r in _get(server, f"/api/jobs/{job}/trials")["items"]}
    assert _value(rows[spans_only], "cost_usd") is None  # spans carry no cost: missing, not zero
    assert _value(rows[logs_only], "cost_usd") == _value(rows[both], "cost_usd") == pytest.approx(COST)
    totals = _get(server, f"/api/jobs/{job}")
    assert (_value(totals, "total_input_tokens"), _value(totals, "total_cost_usd")) == (
        3 * INPUT,
        pytest.approx(2 * COST),
    )


def test_a_gemini_cli_trial_streamed_as_spans_and_events_counts_each_call_once(server, unique):
    trial = f"gemini-{unique}"
    resource = {"service.name": "gemini-cli", "harbor.job.name": f"job-{unique}", "harbor.trial.name": trial}
    traces = Traces(resource, scope="gemini-cli")
    common = {"gen_ai.agent.name": "gemini-cli", "gen_ai.conversation.id": "s1"}
    logs = Logs(resource, scope="gemini-cli")
    base = {"session.id": "s1", "installation.id": "i1"}
    for i, at in enumerate((0, 5000)):
        traces.span(
            "llm_call",
            {
                **common,
                "gen_ai.operation.name": "llm_call",
                "gen_ai.request.model": "gemini-2.5-pro",
                "gen_ai.usage.input_tokens": 1000,
                "gen_ai.usage.output_tokens": 100,
            },
            start_ms=at,
            dur_ms=1200,
        )
        logs.event(
            {
                **base,
                "event.name": "gemini_cli.api_response",
                "model": "gemini-2.5-pro",
                "duration_ms": 1200,
                "input_token_count": 1000,
                "output_token_count": 100,
                "status_code": 200,
            },
            at_ms=at + 1200,
            body="API response",
        )
        traces.span(
            "tool_call",
            {
                **common,
                "gen_ai.operation.name": "tool_call",
                "gen_ai.tool.name": "read_file",
                "gen_ai.tool.call_id": f"gcall-{i}",
            },
            start_ms=at + 1300,
            dur_ms=20,
        )
        logs.event(
            {
                **base,
                "event.name": "gemini_cli.tool_call",
                "function_name": "read_file",
                "duration_ms": 20,
                "success": i == 0,
                "function_args": '{"file_path": "README.md"}',
            },
            at_ms=at + 1320,
        )
    traces.span("agent_call", {**common, "gen_ai.operation.name": "agent_call"}, start_ms=2000, dur_ms=100)
    logs.event(
        {**base, "event.name": "gemini_cli.agent.finish", "agent_name": "codebase_investigator", "duration_ms": 100},
        at_ms=2100,
    )
    _send(server, traces, logs)

    assert _counts(server, trial) == (2, 2, 2, 2)
    row = _get(server, f"/api/trials/{trial}")
    assert (_value(row, "n_input_tokens"), _value(row, "n_output_tokens")) == (2000, 200)
    tools = _get(server, "/api/spans", trial=trial, kind="tool")["items"]
    assert [(t["source"], t["tool"]["call_id"]) for t in tools] == [
        ("otel_traces", "gcall-0"),
        ("otel_traces", "gcall-1"),
    ]
    # The events carry no call id: with as many events as spans, the n-th event is the n-th span's.
    assert [t["success"] for t in tools] == [True, False]
    subagents = [n for n in _nodes(_get(server, f"/api/trials/{trial}/trace")) if n["kind"] == "subagent"]
    assert len(subagents) == 1


def test_a_codex_trial_streamed_as_spans_and_events_counts_each_call_once(server, unique):
    service, trial = f"codex-cli-{unique}", f"codex-{unique}"
    resource = {"service.name": service, "harbor.job.name": f"job-{unique}", "harbor.trial.name": trial}
    traces = Traces(resource)
    logs = Logs(resource)
    common = {"conversation.id": f"conv-{unique}", "model": "gpt-5-codex"}
    traces.span(
        "completed",
        {
            **common,
            "gen_ai.usage.input_tokens": 5000,
            "gen_ai.usage.output_tokens": 700,
            "gen_ai.usage.cache_read.input_tokens": 4096,
        },
        start_ms=0,
        dur_ms=1000,
    )
    logs.event(
        {
            **common,
            "event.name": "codex.sse_event",
            "event.kind": "response.completed",
            "input_token_count": "5000",
            "output_token_count": "700",
            "cached_token_count": "4096",
            "duration_ms": "1000",
        },
        at_ms=1000,
    )
    for i, (tool, at) in enumerate((("apply_patch", 1100), ("shell", 1300))):
        traces.span("handle_tool_call", {**common, "tool_name": tool, "call_id": f"call_{i}"}, start_ms=at, dur_ms=40)
        logs.event(
            {
                **common,
                "event.name": "codex.tool_result",
                "tool_name": tool,
                "call_id": f"call_{i}",
                "success": "true",
                "duration_ms": "40",
            },
            at_ms=at + 40,
        )
    _send(server, traces, logs)

    assert _counts(server, trial) == (1, 2, 1, 2)
    assert _value(_get(server, f"/api/trials/{trial}"), "n_input_tokens") == 5000
    tools = _get(server, "/api/spans", service=service, kind="tool")["items"]
    assert sorted(t["tool"]["call_id"] for t in tools) == ["call_0", "call_1"]


def test_a_derived_record_goes_with_its_dropped_carrier(server, unique):
    trial = f"t-{unique}"
    traces = Traces({"service.name": unique, "harbor.trial.name": trial})
    traces.span(
        "chat gpt-4.1",
        {"gen_ai.operation.name": "chat", "gen_ai.request.model": "gpt-4.1", "gen_ai.usage.input_tokens": 10},
        start_ms=0,
        dur_ms=50,
    )
    logs = Logs({"service.name": unique, "harbor.trial.name": trial})
    logs.event(
        {
            "gen_ai.operation.name": "chat",
            "gen_ai.request.model": "gpt-4.1",
            "gen_ai.usage.input_tokens": 10,
            "gen_ai.output.messages": json.dumps([{"role": "assistant", "parts": [{"type": "text", "content": "Hi"}]}]),
        },
        event_name="gen_ai.client.inference.operation.details",
        at_ms=50,
    )
    _send(server, traces, logs)

    tree = _get(server, f"/api/trials/{trial}/trace")
    # One model call, told twice: the span is kept, the event and the output it carried are not.
    assert [(n["kind"], n["event"]["source"]) for n in _nodes(tree)] == [("llm_request", "otel_traces")]
    assert tree["orphans"] == 0


def test_job_wide_pages_filtered_on_a_fact_list_each_matching_call_once(server, unique):
    """Across trials, with filters: trials where no row matches are left out before twins are resolved,
    and nothing else is (the failed Grep's span only ended: its failure is its event's)."""
    job = f"twins-{unique}"
    for n in range(3):
        identity = TrialIdentity(job=job, trial=f"t{n}__{unique}", task="fix-bug", attempt=1, agent="claude-code")
        _send(server, *_claude_code(identity.resource_attributes()))
    limited = _get(server, "/api/spans", job=job, kind="llm_request", status="429")["items"]
    assert sorted(c["trial"] for c in limited) == [f"t{n}__{unique}" for n in range(3)]
    failed = _get(server, "/api/spans", job=job, kind="tool", status="error")["items"]
    assert [(c["tool"]["name"], c["success"]) for c in failed] == [("Grep", False)] * 3
    paged, after = [], None
    while True:  # a page of one call at a time, by the cursor
        page = _get(server, "/api/spans", job=job, kind="llm_request", limit=1, **({"cursor": after} if after else {}))
        paged += page["items"]
        if not (after := page["next_cursor"]):
            break
    assert len(paged) == 3 * N_MODEL and len({c["event_id"] for c in paged}) == 3 * N_MODEL
    assert sum(c["cost_usd"] or 0 for c in paged) == pytest.approx(3 * COST)


def test_a_job_wide_first_page_is_the_earliest_calls_even_when_the_earliest_rows_are_dropped_twins(server, unique):
    """Trial x told 5 tool calls as early log events and as later spans, and a sixth as a span only (the
    spans win); trial y made 2 calls in between. The first page of 2 is y's two calls, not x's events."""
    job = f"twins-{unique}"
    x, y = (
        TrialIdentity(job=job, trial=f"{t}__{unique}", task="t", attempt=1, agent="claude-code") for t in ("x", "y")
    )
    events = Logs({**x.resource_attributes(), "service.name": "claude-code"}, scope=LOGGER)
    for i in range(5):
        events.event(
            {"event.name": "tool_result", "tool_name": "Read", "tool_use_id": f"toolu_x{i}", "success": "true"},
            at_ms=i,
            body="claude_code.tool_result",
        )
    spans = Traces({**x.resource_attributes(), "service.name": "claude-code"}, scope=TRACER)
    for i in range(6):
        spans.span("claude_code.tool", {"tool_name": "Read", "tool_use_id": f"toolu_x{i}"}, start_ms=100 + i)
    other = Traces({**y.resource_attributes(), "service.name": "claude-code"}, scope=TRACER)
    for i in range(2):
        other.span("claude_code.tool", {"tool_name": "Edit", "tool_use_id": f"toolu_y{i}"}, start_ms=10 + i)
    _send(server, events, spans, other)
    page = _get(server, "/api/spans", job=job, kind="tool", limit=2)["items"]
    assert [(c["trial"], c["tool"]["call_id"]) for c in page] == [(y.trial, "toolu_y0"), (y.trial, "toolu_y1")]


def test_records_with_different_call_ids_are_two_calls(server, unique):
    """One Claude Code trial: a GenAI `execute_tool Read` span (call id toolu_1) and a tool_result event for
    Edit (toolu_2). Neither tells the other's call: both are listed and counted, everywhere."""
    job, trial = f"job-{unique}", f"t-{unique}"
    resource = {"service.name": "claude-code", "harbor.job.name": job, "harbor.trial.name": trial}
    traces = Traces(resource, scope=TRACER)
    traces.span(
        "execute_tool Read",
        {
            "gen_ai.operation.name": "execute_tool",
            "gen_ai.tool.name": "Read",
            "gen_ai.tool.call.id": "toolu_1",
            "gen_ai.tool.call.arguments": '{"file_path": "/app/a.py"}',
        },
        start_ms=0,
    )
    events = Logs(resource, scope=LOGGER)
    events.event(
        {
            "event.name": "tool_result",
            "tool_name": "Edit",
            "tool_use_id": "toolu_2",
            "success": "true",
            "tool_input": '{"file_path": "/app/a.py"}',
            "duration_ms": "30",
        },
        at_ms=100,
        body="claude_code.tool_result",
    )
    _send(server, traces, events)
    tools = _get(server, "/api/spans", trial=trial, kind="tool")["items"]
    assert sorted((t["tool"]["name"], t["tool"]["call_id"], t["source"]) for t in tools) == [
        ("Edit", "toolu_2", "otel_logs"),
        ("Read", "toolu_1", "otel_traces"),
    ]
    assert _value(_get(server, f"/api/trials/{trial}"), "n_tool_calls") == 2
    behavior = _get(server, f"/api/trials/{trial}/behavior")
    assert behavior["n_calls"] == 2
    (row,) = _get(server, f"/api/jobs/{job}/trials")["items"]
    assert _value(row, "n_tool_calls") == 2


@pytest.fixture(scope="module")
def tenants(store_dir, tmp_path_factory):
    """A server with two tenants, on the store the tenant-blind `server` reads whole (as an operator does)."""
    tokens_file = tmp_path_factory.mktemp("twin-auth") / "tokens"
    tokens_file.write_text("twin-acme acme\ntwin-globex globex\n")
    srv = InProcessServer(Settings(data_dir=store_dir, tokens_file=tokens_file)).start()
    yield srv
    srv.stop()


def _send_as(server, token: str, payload) -> None:
    kind = "traces" if isinstance(payload, Traces) else "logs"
    reply = httpx.post(
        f"{server.http_url}/v1/{kind}",
        content=payload.request.SerializeToString(),
        headers={"content-type": "application/x-protobuf", "authorization": f"Bearer {token}"},
    )
    assert reply.status_code == 200, reply.text


def test_a_tenants_span_never_pairs_with_another_tenants_event(server, tenants, unique):
    """Tenant acme sends a Claude Code model-call span with globex's job, trial, service and request id;
    globex sends its api_request event. They are two calls, each its tenant's: read over every tenant
    (the operator's view), neither is the other's twin, and globex's event keeps its own model and cost;
    each tenant's trial row counts its own call. (The operator's trial row of a name two tenants use is
    one of their rows: which one is not defined, so it is not asserted.)"""
    job, trial = f"job-{unique}", f"t-{unique}"
    resource = {"service.name": "claude-code", "harbor.job.name": job, "harbor.trial.name": trial}
    span = Traces(resource, scope=TRACER)
    span.span(
        "claude_code.llm_request",
        {"model": "claude-haiku-4-5", "request_id": f"req-{unique}", "input_tokens": 1},
        start_ms=1000,
        dur_ms=500,
    )
    event = Logs(resource, scope=LOGGER)
    event.event(
        {
            "event.name": "api_request",
            "model": "claude-opus-4-1",
            "request_id": f"req-{unique}",
            "input_tokens": 777,
            "output_tokens": 7,
            "cost_usd": 4.2,
            "duration_ms": 500,
        },
        at_ms=1500,
        body="claude_code.api_request",
    )
    _send_as(tenants, "twin-acme", span)
    _send_as(tenants, "twin-globex", event)
    tenants.caught_up()  # stored: the operator's server reads the store, not the tenants' server's log

    calls = _get(server, "/api/spans", trial=trial, kind="llm_request")["items"]
    assert sorted((c["source"], c["model"], c["cost_usd"]) for c in calls) == [
        ("otel_logs", "claude-opus-4-1", 4.2),
        ("otel_traces", "claude-haiku-4-5", None),
    ]
    # Each tenant's trial row is its own calls': globex's the event's cost, acme's a span that tells none.
    for token, cost in (("twin-globex", 4.2), ("twin-acme", None)):
        reply = httpx.get(
            f"{tenants.http_url}/api/trials/{trial}",
            params={"job": job},
            headers={"authorization": f"Bearer {token}"},
            timeout=120,
        )
        assert reply.status_code == 200, reply.text
        assert _value(reply.json(), "cost_usd") == (pytest.approx(cost) if cost else None), token
    assert _get(server, f"/api/trials/{trial}/behavior", job=job)["n_model_calls"] == 2
