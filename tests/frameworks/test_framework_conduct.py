"""How real Python agent frameworks' runs are understood, checked against what the fake served and what the
framework sent.

Each framework (tests/frameworks/record.py: openai-agents, pydantic-ai, LangGraph, strands, Google ADK,
smolagents, OpenLLMetry) runs for real in a venv of its own, its driver giving one agent one tool
`read_file(path)` and the prompt PROMPT; the fake provider (chat_provider.py) answers call 1 with the tool call
read_file(path=FILE_PATH) and call 2 with ANSWER, each with its own usage. Live, the run is relayed into the
session's harborlight; replayed, its recording (fixtures/) is imported. Either way harborlight must read:
two model calls with the exact usage served (a token kind the framework does not send is null), the tool call
read_file on FILE_PATH, the prompt as exactly one user message, the answer as exactly one output and as the
trial's last agent message, one session and no sub-agent, and a trajectory of the user step and the agent's
two steps.

A check harborlight fails today is marked xfail (strict) with what it reads instead, in XFAIL below: each
is a test failing until the reading is fixed, then it must lose its mark.
"""

import json
import uuid
from collections import Counter
from dataclasses import dataclass, field

import pytest

from harborlight.cli.main import main
from tests.frameworks.chat_provider import ANSWER, FILE_PATH, FINAL_CALL_ID, MODEL, PROMPT, TOOL_CALL_ID, USAGES
from tests.frameworks.frameworks import CASES, FRAMEWORKS, case_id, fixture_names, fixture_path
from tests.frameworks.record import run
from tests.real_agents.answers import Answers

HOWS = ("live", "replayed")
NO_TOKENS = {"input": None, "cached": None, "cache_write": None, "output": None, "reasoning": None}


@dataclass(frozen=True)
class Sent:
    """What a framework sends beyond the common ground (every framework sends each call's input and output
    tokens, the model, and the tool call's name and id)."""

    token_kinds: dict[str, int] = field(default_factory=dict)  # other token kinds, as sent on every call
    content: bool = True  # the prompt, the answer and the tool's arguments
    final_tool: bool = False  # answers through a final_answer tool call (the fake's second turn is that call)


SENT = {
    # openinference-instrumentation-openai-agents: llm.token_count.prompt_details.cache_read and
    # completion_details.reasoning (0 here) on every `response` span
    "openai-agents": Sent(token_kinds={"cached": 0, "reasoning": 0}),
    "openai-agents-with-openai-client": Sent(token_kinds={"cached": 0, "reasoning": 0}),
    # without OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT ADK sends no messages nor tool arguments
    "google-adk": Sent(content=False),
    "smolagents": Sent(final_tool=True),
}

# (case, check) -> what harborlight reads instead. A case is case_id(framework, mode); live and replayed alike.
_OAI_PROMPT = ("user prompt read as 0 user_message and no user trajectory step: it is only in the `response` LLM "
               "span's llm.input_messages.1.message.content (role user) and input.value (the Responses API input "
               "list)")
_OAI_ANSWER = ("answer read as 0 output; last_agent_message is the second `response` span's output.value (the whole "
               "Responses API response JSON), not its llm.output_messages.0.message.content")
_OAI_TRAJECTORY = ("no user step; the agent steps' messages are the `response` spans' output.value (response JSON) "
                   "and the tool call's id is a made-up call_1_1, not llm.output_messages.0.message.tool_calls.0."
                   "tool_call.id call_read_1")
_STRANDS_TRAJECTORY = ("no user step, and the second agent step's message is '' (the answer is not read: see the "
                       "answer check)")
XFAIL: dict[tuple[str, str], str] = {
    ("openai-agents", "prompt"): _OAI_PROMPT,
    ("openai-agents", "answer"): _OAI_ANSWER,
    ("openai-agents", "session"): "the run's one agent, the `reader` AGENT span (agent.name) under the root "
                                  "`Agent workflow` AGENT span (session), is read as a subagent",
    ("openai-agents", "trajectory"): _OAI_TRAJECTORY,
    ("openai-agents-with-openai-client", "prompt"): _OAI_PROMPT + " (and the client's `Response` span's "
                                                                  "llm.input_messages / input.value)",
    ("openai-agents-with-openai-client", "answer"): _OAI_ANSWER,
    ("openai-agents-with-openai-client", "session"): "the `reader` AGENT span is read as a subagent (as without the "
                                                     "client instrumentation)",
    ("openai-agents-with-openai-client", "trajectory"): _OAI_TRAJECTORY,
    ("langgraph", "tool"): "target_paths []: the TOOL span's input.value is the bare string '/work/notes.txt' "
                           "(openinference-langchain gives a one-argument tool's input as is), read as arguments "
                           "{'input': '/work/notes.txt'}",
    ("langgraph", "prompt"): "user prompt read as 0 user_message and no user trajectory step: it is in the "
                             "ChatOpenAI LLM spans' llm.input_messages.1.message.content (role user) and the root "
                             "`LangGraph` CHAIN span's input.value",
    ("langgraph", "answer"): "answer read as 0 output; last_agent_message is the second ChatOpenAI span's "
                             "output.value (LangChain's LLMResult JSON, 'generations'), not its "
                             "llm.output_messages.0.message.content",
    ("langgraph", "session"): "2 sessions: each ReAct step's `agent` span (openinference.span.kind AGENT, one per "
                              "LangGraph step) is a session, under the root `LangGraph` CHAIN span read as a group; "
                              "/api/spans lists both as subagent",
    ("langgraph", "trajectory"): "no user step; the agent steps' messages are the ChatOpenAI spans' output.value "
                                 "(LLMResult JSON); the tool call is (call_1_1, read_file, {'input': "
                                 "'/work/notes.txt'}): a made-up id, not tool_call.id call_read_1, and the TOOL span's "
                                 "input.value instead of tool_call.function.arguments",
    ("strands", "tool"): "target_paths []: the default conventions carry the arguments only in the execute_tool span's "
                         "gen_ai.tool.message event (content '{\"path\": ...}'), not in gen_ai.tool.call.arguments",
    ("strands", "prompt"): "user prompt read as 0 user_message and no user trajectory step: it is only in span events "
                           "gen_ai.user.message (attribute content '[{\"text\": ...}]') on the chat, "
                           "execute_event_loop_cycle and invoke_agent spans",
    ("strands", "answer"): "answer read as 0 output and last_agent_message null: it is only in gen_ai.choice span "
                           "events (attribute message '[{\"text\": ...}]') on the second chat span and on "
                           "invoke_agent (there with a trailing newline)",
    ("strands", "trajectory"): "no user step; the tool call's arguments are {} (they are only in the chat span's "
                               "gen_ai.choice event's toolUse input); the second agent step's message is '' (the "
                               "answer is not read: see the answer check)",
    ("strands-latest-experimental", "prompt"): "user prompt read as 0 user_message and no user trajectory step: "
                                               "gen_ai.input.messages is an attribute of "
                                               "gen_ai.client.inference.operation.details span EVENTS (on chat, "
                                               "execute_event_loop_cycle, invoke_agent), not of the spans",
    ("strands-latest-experimental", "answer"): "answer read as 0 output and last_agent_message null: "
                                               "gen_ai.output.messages is only in gen_ai.client.inference.operation."
                                               "details span events",
    ("strands-latest-experimental", "trajectory"): _STRANDS_TRAJECTORY,
    ("google-adk", "session"): "2 sessions: the root `invoke_workflow reader` span (gen_ai.operation.name "
                               "invoke_workflow) and its child `invoke_agent reader`; /api/spans also lists "
                               "invoke_agent as a subagent",
    ("google-adk-content", "session"): "2 sessions: the root `invoke_workflow reader` span and its child "
                                       "`invoke_agent reader`; /api/spans also lists invoke_agent as a subagent",
    ("smolagents", "tool"): "target_paths []: the TOOL span's input.value is {\"args\": [], "
                            "\"sanitize_inputs_outputs\": true, \"kwargs\": {\"path\": ...}}: the path is under kwargs",
    ("smolagents", "prompt"): "user prompt read as 0 user_message and no user trajectory step: it is the AGENT span "
                              "`reader.run`'s input.value {\"task\": ...} (and 'New task:\\n' + prompt in the LLM "
                              "spans' llm.input_messages.1.message.contents.0.message_content.text)",
    ("smolagents", "answer"): "answer read as 0 output; last_agent_message is the second LLM span's output.value "
                              "(ChatMessage JSON with the final_answer call), not the final_answer TOOL span's or the "
                              "AGENT span's output.value",
    ("smolagents", "trajectory"): "no user step; the agent steps' messages are the LLM spans' output.value JSON and "
                                  "the tool calls are (call_1_1, read_file, {'args': [], 'sanitize_inputs_outputs': "
                                  "True, 'kwargs': {...}}) and (call_2_1, final_answer, ...): made-up ids, not "
                                  "tool_call.id call_read_1 / call_final_1, and the TOOL span's input.value wrapper as "
                                  "arguments",
    ("traceloop", "tool"): "the tool row's name and category are null: the `read_file.tool` span says "
                           "traceloop.span.kind=tool and traceloop.entity.name=read_file (no gen_ai.tool.name); its "
                           "arguments are traceloop.entity.input {\"args\": [], \"kwargs\": {\"path\": ...}}",
    ("traceloop", "prompt"): "user prompt read as 0 user_message and no user trajectory step: it is only in the "
                             "openai.chat spans' flattened gen_ai.prompt.1.content (gen_ai.prompt.1.role user)",
    ("traceloop", "answer"): "answer read as 0 output and last_agent_message null: it is in the second openai.chat "
                             "span's gen_ai.completion.0.content and the `reader.agent` span's traceloop.entity.output "
                             "(a JSON string)",
    ("traceloop", "trajectory"): "no user step; the tool call is (call_1_1, 'read_file.tool', {}): the tool span's "
                                 "name, not gen_ai.completion.0.tool_calls.0.name/id/arguments; the second agent "
                                 "step's message is ''",
}


@dataclass(frozen=True)
class Case:
    id: str
    how: str
    sent: Sent
    answers: Answers


_DONE: dict[tuple[str, str, str], tuple[str, str]] = {}  # one run or import per case and worker process


@pytest.fixture(scope="module")
def case(request, server, tmp_path_factory) -> Case:
    name, mode, how = request.param
    framework, key = FRAMEWORKS[name], case_id(name, mode)
    if how == "live" and not framework.installed:
        pytest.skip(f"{name}'s venv is not built (python -m tests.frameworks.venvs; the replays still run)")
    if how == "replayed" and not fixture_path(name, mode).exists():
        pytest.skip(f"no recording {fixture_path(name, mode).name} (python -m tests.frameworks.record {name})")
    if (name, mode, how) not in _DONE:
        if how == "replayed":
            _, job, trial = fixture_names(name, mode)
            assert main(["import", "otlp", "--server", server.http_url, str(fixture_path(name, mode))]) == 0
        else:
            run_id = uuid.uuid4().hex[:8]
            service, job, trial = f"{key}-{run_id}", f"live-{key}-{run_id}", f"{key}-{run_id}__1"
            served = run(server.grpc_endpoint, server.http_url, name, mode, service, job, trial).served
            assert len(served) == 2, served
        _DONE[(name, mode, how)] = job, trial
        server.caught_up()
    job, trial = _DONE[(name, mode, how)]
    return Case(key, how, SENT.get(key, Sent()), Answers(server.http_url, job, trial,
                                                          tmp_path_factory.mktemp("export")))


def cases(check: str) -> list:
    """Every (framework, mode, how), each marked xfail where harborlight fails the check today."""
    params = []
    for name, mode in CASES:
        key = case_id(name, mode)
        reason = XFAIL.get((key, check))
        marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
        params += [pytest.param((name, mode, how), id=f"{key}-{how}", marks=marks) for how in HOWS]
    return params


def _tokens(case: Case, usage: dict) -> dict:
    return {**NO_TOKENS, **case.sent.token_kinds, "input": usage["prompt_tokens"], "output": usage["completion_tokens"]}


def _tool_calls(case: Case) -> list[tuple[str, str, dict]]:
    """The model's tool calls as the fake served them: (call id, name, arguments)."""
    calls = [(TOOL_CALL_ID, "read_file", {"path": FILE_PATH})]
    if case.sent.final_tool:
        calls.append((FINAL_CALL_ID, "final_answer", {"answer": ANSWER}))
    return calls


@pytest.mark.parametrize("case", cases("calls"), indirect=True)
def test_two_model_calls_with_the_usage_the_fake_served(case):
    calls = case.answers.spans("llm_request")
    assert [(c["model"], c["tokens"]) for c in calls] == [(MODEL, _tokens(case, u)) for u in USAGES]


@pytest.mark.parametrize("case", cases("tool"), indirect=True)
def test_the_tool_call_is_read_file_on_its_path(case):
    rows = case.answers.spans("tool")
    assert [r["tool"]["name"] for r in rows] == [name for _, name, _ in _tool_calls(case)]
    assert rows[0]["tool"]["category"] == "read"
    if case.sent.content:  # the path is in the arguments
        assert rows[0]["tool"]["target_paths"] == [FILE_PATH]
    assert case.answers.behavior["n_calls"] == len(_tool_calls(case))


@pytest.mark.parametrize("case", cases("prompt"), indirect=True)
def test_the_prompt_is_one_user_message(case):
    if not case.sent.content:
        pytest.skip(f"{case.id} does not send the prompt")
    assert len(case.answers.spans("user_message")) == 1
    users = [s for s in case.answers.trajectory["steps"] if s["source"] == "user"]
    assert [s["message"] for s in users] == [PROMPT]


@pytest.mark.parametrize("case", cases("answer"), indirect=True)
def test_the_answer_is_one_output_and_the_last_agent_message(case):
    if not case.sent.content:
        pytest.skip(f"{case.id} does not send the answer")
    assert len(case.answers.spans("output")) == 1
    assert case.answers.behavior["last_agent_message"]["value"] == ANSWER


def _kinds(node: dict) -> Counter:
    found = Counter([node["kind"]])
    for child in node["children"]:
        found += _kinds(child)
    return found


@pytest.mark.parametrize("case", cases("session"), indirect=True)
def test_one_session_and_no_subagent(case):
    kinds = sum((_kinds(root) for root in case.answers.trace["roots"]), Counter())
    assert (kinds["session"], kinds["subagent"]) == (1, 0)
    assert case.answers.spans("subagent") == []


@pytest.mark.parametrize("case", cases("trajectory"), indirect=True)
def test_the_trajectory_is_the_prompt_the_tool_call_and_the_answer(case):
    if not case.sent.content:
        pytest.skip(f"{case.id} does not send the prompt, the answer nor the tool's arguments")
    steps = case.answers.trajectory["steps"]
    shape = [(s["source"], s["message"], [(c["tool_call_id"], c["function_name"], c["arguments"])
                                          for c in s.get("tool_calls") or []]) for s in steps]
    first, *final = _tool_calls(case)
    assert shape == [("user", PROMPT, []), ("agent", "", [first]),
                     ("agent", "", final) if final else ("agent", ANSWER, [])]
    # the agent steps are the model calls, each with its own usage
    metrics = [(s["metrics"]["prompt_tokens"], s["metrics"]["completion_tokens"]) for s in steps[1:]]
    assert metrics == [(u["prompt_tokens"], u["completion_tokens"]) for u in USAGES]
    assert json.dumps(steps)  # plain JSON all the way down
