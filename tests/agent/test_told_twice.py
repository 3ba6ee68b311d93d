"""A call told by two spans of one trace counts once (harborlight/agent/twins.py), in the shapes no producer's
rule names: a bare model-call wrapper over the client's call one span further down (opencode's LLM.run >
ai.streamText > ai.streamText.doStream, all of one instrumentation), and a tool call told by its executor
and by the model call that asked for it (opencode's Tool.execute and the AI SDK's ai.toolCall, the same call
id). A wrapper that tells facts of its own, and tool spans with different call ids, stay calls of their own."""

import json
import os

import httpx

from tests.agent.otlp_build import Traces

FILE = "/work/notes.txt"


def _get(server, path: str, **params) -> dict:
    reply = httpx.get(f"{server.http_url}{path}", params=params, timeout=120)
    assert reply.status_code == 200, reply.text
    return reply.json()


def _run(
    server,
    unique: str,
    *,
    wrapper_model: str | None = None,
    tool_ids=("call_1", "call_1"),
    trace_id: bytes | None = None,
    job: str = "",
) -> str:
    """One opencode-like turn: LLM.run > ai.streamText > ai.streamText.doStream (the tokens), the AI SDK's
    ai.toolCall (with arguments) under it, and the executor's Tool.execute (name and id only) beside it.
    `trace_id`: sent as that trace (its spans' ids drawn from it alike), a run sent again."""
    trial = f"t-{unique}"
    resource = {"service.name": "opencode", "harbor.job.name": job or f"j-{unique}", "harbor.trial.name": trial}
    traces = Traces(resource, scope="opencode", **({"trace_id": trace_id} if trace_id else {}))
    ids = iter(trace_id[i : i + 7] + bytes([i]) for i in range(5)) if trace_id else iter([None] * 5)
    run = traces.span(
        "LLM.run", {"gen_ai.request.model": wrapper_model} if wrapper_model else {}, dur_ms=900, span_id=next(ids)
    )
    text = traces.span(
        "ai.streamText", {"ai.model.id": "fake-coder"}, parent=run, start_ms=10, dur_ms=800, span_id=next(ids)
    )
    traces.span(
        "ai.streamText.doStream",
        {"ai.model.id": "fake-coder", "ai.usage.inputTokens": 120, "ai.usage.outputTokens": 30},
        parent=text,
        start_ms=20,
        dur_ms=300,
        span_id=next(ids),
    )
    traces.span(
        "ai.toolCall",
        {
            "ai.toolCall.name": "write",
            "ai.toolCall.id": tool_ids[0],
            "ai.toolCall.args": json.dumps({"filePath": FILE}),
        },
        parent=text,
        start_ms=400,
        dur_ms=100,
        span_id=next(ids),
    )
    traces.span(
        "Tool.execute", {"tool.name": "write", "tool.call_id": tool_ids[1]}, start_ms=405, dur_ms=90, span_id=next(ids)
    )
    traces.send(server)
    return trial


def test_a_bare_wrapper_over_the_call_one_span_down_counts_once(server, unique):
    trial = _run(server, unique)
    calls = _get(server, "/api/spans", trial=trial, kind="llm_request")["items"]
    assert [(c["name"], c["model"], c["tokens"]["input"], c["tokens"]["output"]) for c in calls] == [
        ("ai.streamText.doStream", "fake-coder", 120, 30)
    ]
    row = _get(server, f"/api/trials/{trial}")
    assert row["n_input_tokens"]["value"] == 120
    # the trace keeps the wrapper's place, as no call
    kinds = {}
    todo = list(_get(server, f"/api/trials/{trial}/trace")["roots"])
    while todo:
        node = todo.pop()
        kinds[node["event"]["name"]] = node["kind"]
        todo += node["children"]
    assert kinds["LLM.run"] == "group" and kinds["ai.streamText.doStream"] == "llm_request"


def test_a_wrapper_that_names_its_model_is_a_call_of_its_own(server, unique):
    trial = _run(server, unique, wrapper_model="fake-coder")
    calls = _get(server, "/api/spans", trial=trial, kind="llm_request")["items"]
    assert sorted(c["name"] for c in calls) == ["LLM.run", "ai.streamText.doStream"]


def test_a_tool_call_told_by_two_spans_is_one_with_its_arguments(server, unique):
    trial = _run(server, unique)
    tools = _get(server, "/api/spans", trial=trial, kind="tool")["items"]
    assert [(t["name"], t["tool"]["call_id"], t["tool"]["target_paths"]) for t in tools] == [
        ("ai.toolCall", "call_1", [FILE])
    ]
    behavior = _get(server, f"/api/trials/{trial}/behavior")
    assert (behavior["n_calls"], behavior["files_touched"]["value"]) == (1, [FILE])


def test_tool_spans_with_different_call_ids_are_two_calls(server, unique):
    trial = _run(server, unique, tool_ids=("call_1", "call_2"))
    tools = _get(server, "/api/spans", trial=trial, kind="tool")["items"]
    assert sorted(t["tool"]["call_id"] for t in tools) == ["call_1", "call_2"]


def test_a_run_sent_again_under_another_trial_is_read_alike_in_both(server, unique):
    """The same trace (its ids, its spans) sent under two trials, as a recording replayed under a new name is:
    each trial reads its own calls, never the other's as their second telling."""
    trace = os.urandom(16)
    first = _run(server, f"{unique}-first", trace_id=trace, job=f"j-{unique}")
    again = _run(server, f"{unique}-again", trace_id=trace, job=f"j-{unique}")
    for trial in (first, again):
        tools = _get(server, "/api/spans", trial=trial, kind="tool")["items"]
        calls = _get(server, "/api/spans", trial=trial, kind="llm_request")["items"]
        assert [(t["name"], t["tool"]["call_id"]) for t in tools] == [("ai.toolCall", "call_1")], trial
        assert [c["name"] for c in calls] == ["ai.streamText.doStream"], trial
