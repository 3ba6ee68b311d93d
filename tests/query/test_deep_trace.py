"""A parent chain 20,000 spans deep (each span a model call or a tool call inside the one before it):
GET /trace, /time and /behavior answer 200 with the right depths and durations, and `harborlight trace`
renders it. Every tree read is iterative and linear or n log n: the chain is read in seconds."""

import uuid

import httpx
import pytest

from tests.agent.otlp_build import Traces
from tests.cli.commands import run

DEPTH = 20_000
BATCH = 5_000


def _send_chain(server, job: str, trial: str, depth: int, tools: bool = True) -> None:
    """Span i starts at i ms and ends at 2 * depth - i ms: each inside its parent. Even spans are model
    calls, odd ones tool calls (with `tools`; else every one a model call); span 0, the trial's root, is a
    model call too."""
    traces = Traces({"service.name": "deep-agent", "harbor.job.name": job, "harbor.trial.name": trial})
    parent = b""
    for i in range(depth):
        if i % 2 == 0 or not tools:
            attrs = {
                "gen_ai.operation.name": "chat",
                "gen_ai.request.model": "deep-model",
                "gen_ai.usage.input_tokens": 10,
                "gen_ai.usage.output_tokens": 1,
            }
            name = "chat deep-model"
        else:
            attrs = {
                "gen_ai.operation.name": "execute_tool",
                "gen_ai.tool.name": "Bash",
                "gen_ai.tool.call.id": f"call-{i}",
                "gen_ai.tool.call.arguments": '{"command": "ls"}',
            }
            name = "execute_tool Bash"
        parent = traces.span(name, attrs, parent=parent, start_ms=i, dur_ms=2 * depth - 2 * i)
        if (i + 1) % BATCH == 0 or i == depth - 1:
            traces.send(server)
            traces = Traces(traces.resource, trace_id=traces.trace_id)


@pytest.fixture(scope="module")
def chain(server):
    job, trial = f"job-{uuid.uuid4().hex[:12]}-deep", f"{uuid.uuid4().hex[:12]}-deep"
    _send_chain(server, job, trial, DEPTH)
    server.caught_up()
    return job, trial


def _get(server, path: str, **params) -> dict:
    reply = httpx.get(f"{server.http_url}{path}", params=params, timeout=600)
    assert reply.status_code == 200, reply.text[:500]
    return reply.json()


def test_trace_rows_every_span_at_its_depth(server, chain):
    job, trial = chain
    trace = _get(server, f"/api/trials/{trial}/trace", job=job)
    assert trace["events"] == DEPTH and trace["orphans"] == 0
    assert trace["kinds"] == {"llm_request": DEPTH // 2, "tool": DEPTH // 2}
    rows = trace["rows"]
    assert [r["depth"] for r in rows] == list(range(DEPTH))
    assert all(r["parent_event_id"] == p["event_id"] for p, r in zip(rows, rows[1:], strict=False))
    assert rows[-1]["width_pct"] == pytest.approx(100 * 2 / (2 * DEPTH))  # the deepest span: 2 ms of 40 s
    # `roots` nests MAX_NESTING levels; the span there names the rest as `rows` holds them
    node, levels = trace["roots"][0], 1
    while node["children"]:
        node, levels = node["children"][0], levels + 1
    assert levels == 100 and trace["unnested"] == [node["event"]["event_id"]] == [rows[99]["event_id"]]


def test_time_splits_the_whole_chain(server, chain):
    job, trial = chain
    time = _get(server, f"/api/trials/{trial}/time", job=job)
    assert time["agent_window_s"]["value"] == pytest.approx(2 * DEPTH / 1000)
    longest = time["longest_calls"]["value"]
    assert [(c["kind"], c["duration_s"]) for c in longest[:2]] == [
        ("llm_request", pytest.approx(40.0)),
        ("tool", pytest.approx(39.998)),
    ]
    path = time["critical_path"]["value"]
    # each span but the deepest is on the path twice (before and after its child), 1 ms each
    assert path["n_steps"] == 2 * (DEPTH - 1) + 1
    assert path["length_s"] == pytest.approx(40.0)
    assert path["by_kind"] == {"llm_request": pytest.approx(20.0), "tool": pytest.approx(20.0)}


def test_behavior_counts_every_call(server, chain):
    job, trial = chain
    behavior = _get(server, f"/api/trials/{trial}/behavior", job=job)
    assert behavior["n_calls"] == DEPTH // 2 and behavior["n_model_calls"] == DEPTH // 2
    assert behavior["name_freq"]["value"] == {"execute": {"Bash": DEPTH // 2}}


def test_the_cli_renders_the_chain(server, chain, capsys):
    job, trial = chain
    code, out, err = run(capsys, "trace", trial, "--job", job, "--server", server.http_url)
    assert code == 0, err
    assert f"trial {trial}: {DEPTH} event(s), 0 orphan(s)" in out
    assert "deeper than the API nests: the deeper spans are in --json's rows" in out
    code, out, err = run(capsys, "trial", trial, "--job", job, "--server", server.http_url)
    assert code == 0, err
    assert "critical path (39,999 steps)" in out


def test_hiding_and_zooming_read_the_whole_chain(server, chain):
    job, trial = chain
    hidden = _get(server, f"/api/trials/{trial}/trace", job=job, hide="tool")
    assert hidden["hidden"] == DEPTH - 1 and [r["depth"] for r in hidden["rows"]] == [0]  # the first tool's subtree
    middle = _get(server, f"/api/trials/{trial}/trace", job=job)["rows"][DEPTH // 2]["event_id"]
    zoomed = _get(server, f"/api/trials/{trial}/trace", job=job, zoom=middle)
    assert len(zoomed["rows"]) == DEPTH // 2 and zoomed["rows"][-1]["depth"] == DEPTH // 2 - 1
    assert zoomed["rows"][0]["width_pct"] == pytest.approx(100.0)


def test_behavior_of_a_chain_of_model_calls_only(server):
    """No tool call anywhere: each span's search for the tool call it belongs to went up the whole chain,
    20,000 deep 110-120 s; each span's nearest tool is now found once."""
    job, trial = f"job-{uuid.uuid4().hex[:12]}-calls", f"{uuid.uuid4().hex[:12]}-calls"
    _send_chain(server, job, trial, DEPTH, tools=False)
    server.caught_up()
    behavior = _get(server, f"/api/trials/{trial}/behavior", job=job)
    assert behavior["n_model_calls"] == DEPTH and behavior["n_calls"] == 0
