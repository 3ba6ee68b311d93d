"""The GenAI conventions' messages, read generically: a two-turn conversation with a tool loop, as the GenAI 1.30
message events tell it (each call logs its whole input history again) and as the latest conventions tell it
(gen_ai.input.messages / gen_ai.output.messages on the calls). Each user turn is one user_message, each answer one
output, whatever the form, and the trajectory reads user → agent (tool call) → agent (answer) → user → agent."""

import json
import os

import httpx
from opentelemetry.proto.common.v1.common_pb2 import AnyValue, ArrayValue, KeyValue, KeyValueList

from harborlight.agent import twins as agent_twins
from harborlight.sql_text import Sql, literal
from tests.agent.otlp_build import Logs, Traces

SYSTEM, FIRST, SECOND = "You read files.", "What does notes.txt say?", "And todo.txt?"
ANSWER_1, ANSWER_2 = "It says: ship it.", "It says: celebrate."
CALL = {"id": "call_1", "type": "function", "function": {"name": "read_file", "arguments": '{"path": "/w/notes.txt"}'}}
TOOL_RESULT = '{"text": "ship it"}'


def _value(value) -> AnyValue:
    """A value as the OpenTelemetry SDK sends a log body: maps as kvlists, lists as arrays."""
    if isinstance(value, dict):
        return AnyValue(kvlist_value=KeyValueList(values=[KeyValue(key=k, value=_value(v)) for k, v in value.items()]))
    if isinstance(value, list):
        return AnyValue(array_value=ArrayValue(values=[_value(v) for v in value]))
    if isinstance(value, int):
        return AnyValue(int_value=value)
    return AnyValue(string_value=str(value))


def _identity(unique: str) -> dict:
    return {"service.name": unique, "harbor.job.name": f"job-{unique}", "harbor.trial.name": f"t-{unique}"}


# Each call: (its input history as 1.30 events (event name, body), its output choice's message, its usage).
_HISTORY_1 = [("gen_ai.system.message", {"content": SYSTEM}), ("gen_ai.user.message", {"content": FIRST})]
_HISTORY_2 = _HISTORY_1 + [
    ("gen_ai.assistant.message", {"tool_calls": [CALL]}),
    ("gen_ai.tool.message", {"content": TOOL_RESULT, "id": "call_1"}),
]
_HISTORY_3 = _HISTORY_2 + [
    ("gen_ai.assistant.message", {"content": ANSWER_1}),
    ("gen_ai.user.message", {"content": SECOND}),
]
CALLS = [
    (_HISTORY_1, {"role": "assistant", "tool_calls": [CALL]}, (31, 7)),
    (_HISTORY_2, {"role": "assistant", "content": ANSWER_1}, (53, 11)),
    (_HISTORY_3, {"role": "assistant", "content": ANSWER_2}, (71, 13)),
]


def _latest(history: list[tuple[str, dict]]) -> list[dict]:
    """A 1.30 history in the latest conventions' form."""
    out = []
    for name, body in history:
        role = name.split(".")[1]
        parts = [{"type": "text", "content": body["content"]}] if "content" in body else []
        parts += [
            {
                "type": "tool_call",
                "id": c["id"],
                "name": c["function"]["name"],
                "arguments": json.loads(c["function"]["arguments"]),
            }
            for c in body.get("tool_calls", [])
        ]
        out.append(
            {
                "role": role,
                "parts": [
                    {**p, "type": "tool_call_response", "id": body["id"], "response": p["content"]}
                    if role == "tool"
                    else p
                    for p in parts
                ],
            }
        )
    return out


def _send_1_30(server, unique: str) -> None:
    for n, (history, choice, (tokens_in, tokens_out)) in enumerate(CALLS):
        traces = Traces(_identity(unique))  # the instrumentation's calls are a trace each
        span_id = traces.span(
            "chat gpt-fake-1",
            {
                "gen_ai.operation.name": "chat",
                "gen_ai.system": "openai",
                "gen_ai.request.model": "gpt-fake-1",
                "gen_ai.usage.input_tokens": tokens_in,
                "gen_ai.usage.output_tokens": tokens_out,
            },
            start_ms=n * 100,
            dur_ms=50,
        )
        traces.send(server)
        logs = Logs(_identity(unique), scope="opentelemetry.instrumentation.openai_v2")
        for i, (name, body) in enumerate(history + [("gen_ai.choice", {"index": 0, "message": choice})]):
            logs.event(
                {"gen_ai.system": "openai"},
                at_ms=n * 100 + 1 + i,
                event_name=name,
                trace_id=traces.trace_id,
                span_id=span_id,
            )
            logs.request.resource_logs[0].scope_logs[0].log_records[-1].body.CopyFrom(_value(body))
        logs.send(server)


def _send_latest(server, unique: str) -> None:
    for n, (history, choice, (tokens_in, tokens_out)) in enumerate(CALLS):
        traces = Traces(_identity(unique))
        output = _latest([("gen_ai.assistant.message", choice)])
        traces.span(
            "chat gpt-fake-1",
            {
                "gen_ai.operation.name": "chat",
                "gen_ai.provider.name": "openai",
                "gen_ai.request.model": "gpt-fake-1",
                "gen_ai.usage.input_tokens": tokens_in,
                "gen_ai.usage.output_tokens": tokens_out,
                "gen_ai.input.messages": json.dumps(_latest(history)),
                "gen_ai.output.messages": json.dumps(output),
            },
            start_ms=n * 100,
            dur_ms=50,
            span_id=os.urandom(8),
        )
        traces.send(server)


def _get(server, path: str, **params) -> dict:
    answer = httpx.get(server.http_url + path, params=params, timeout=120)
    assert answer.status_code == 200, answer.text
    return answer.json()


def _check(server, unique: str) -> None:
    server.caught_up()
    job, trial = f"job-{unique}", f"t-{unique}"

    def spans(kind: str) -> list[dict]:
        return _get(server, "/api/spans", job=job, trial=trial, kind=kind, limit=100)["items"]

    assert [(c["tokens"]["input"], c["tokens"]["output"]) for c in spans("llm_request")] == [u for *_, u in CALLS]
    assert len(spans("user_message")) == 2
    assert len(spans("output")) == 2
    steps = _get(server, f"/api/trials/{trial}/trajectory", job=job)["steps"]
    assert [(s["source"], s["message"], [c["function_name"] for c in s.get("tool_calls") or []]) for s in steps] == [
        ("user", FIRST, []),
        ("agent", "", ["read_file"]),
        ("agent", ANSWER_1, []),
        ("user", SECOND, []),
        ("agent", ANSWER_2, []),
    ]
    assert steps[1]["tool_calls"][0]["arguments"] == {"path": "/w/notes.txt"}
    behavior = _get(server, f"/api/trials/{trial}/behavior", job=job)
    assert behavior["last_agent_message"]["value"] == ANSWER_2


def test_genai_1_30_events_each_user_turn_once_though_every_call_replays_the_history(server, unique):
    _send_1_30(server, unique)
    _check(server, unique)


def test_latest_genai_messages_a_call_ending_with_the_users_text_carries_the_turn(server, unique):
    _send_latest(server, unique)
    _check(server, unique)


def test_a_users_message_without_a_genai_text_part_is_no_turn(server, unique):
    """Gemini CLI's own message format ({"text"} parts, no type): its turns are its user_prompt events."""
    traces = Traces(_identity(unique))
    traces.span(
        "llm_call",
        {
            "gen_ai.operation.name": "chat",
            "gen_ai.usage.input_tokens": 5,
            "gen_ai.input.messages": json.dumps([{"role": "user", "parts": [{"text": FIRST}]}]),
        },
    )
    traces.send(server)
    server.caught_up()
    rows = server.sql("SELECT Kind FROM agent_events WHERE ServiceName = {s:String}", s=unique)
    assert sorted(k for (k,) in rows) == ["llm_request"]


def test_a_choice_that_only_requests_tools_stays_with_its_calls_trial_when_no_harness_names_it(server, unique):
    """Named after its trace, as its call is: a step of the call, not of the agent's process (which has none)."""
    traces = Traces({"service.name": unique})
    span_id = traces.span("chat gpt-fake-1", {"gen_ai.operation.name": "chat", "gen_ai.usage.input_tokens": 31})
    traces.send(server)
    logs = Logs({"service.name": unique})
    logs.event({}, at_ms=1, event_name="gen_ai.choice", trace_id=traces.trace_id, span_id=span_id)
    logs.request.resource_logs[0].scope_logs[0].log_records[-1].body.CopyFrom(_value({"message": CALLS[0][1]}))
    logs.send(server)
    server.caught_up()
    trial = traces.trace_id.hex()
    where = Sql(f"TrialName = {literal(trial)}")
    for form in (agent_twins.PLAIN, agent_twins.ALONE):  # as the API reads it, and as Grafana's SQL does
        events = agent_twins.events(where, form, scope=where).text
        rows = server.sql(f"SELECT Kind, TrialName FROM ({events}) ORDER BY Kind")
        assert rows == [("group", trial), ("llm_request", trial)], form
