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
XFAIL: dict[tuple[str, str], str] = {}


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
    return Case(
        key, how, SENT.get(key, Sent()), Answers(server.http_url, job, trial, tmp_path_factory.mktemp("export"))
    )


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


def _nodes(node: dict, ancestors: tuple = ()) -> list[tuple[dict, tuple]]:
    found = [(node, ancestors)]
    for child in node["children"]:
        found += _nodes(child, (*ancestors, node["kind"]))
    return found


@pytest.mark.parametrize("case", cases("session"), indirect=True)
def test_one_session_holds_the_calls_and_no_subagent(case):
    nodes = [pair for root in case.answers.trace["roots"] for pair in _nodes(root)]
    kinds = Counter(node["kind"] for node, _ in nodes)
    assert (kinds["session"], kinds["subagent"]) == (1, 0)
    assert case.answers.spans("subagent") == []
    # the trace tree holds each model and tool call once, all of them in the session
    assert (kinds["llm_request"], kinds["tool"]) == (len(USAGES), len(_tool_calls(case)))
    assert all("session" in ancestors for node, ancestors in nodes if node["kind"] in ("llm_request", "tool"))


@pytest.mark.parametrize("case", cases("trajectory"), indirect=True)
def test_the_trajectory_is_the_prompt_the_tool_call_and_the_answer(case):
    if not case.sent.content:
        pytest.skip(f"{case.id} does not send the prompt, the answer nor the tool's arguments")
    steps = case.answers.trajectory["steps"]
    shape = [
        (
            s["source"],
            s["message"],
            [(c["tool_call_id"], c["function_name"], c["arguments"]) for c in s.get("tool_calls") or []],
        )
        for s in steps
    ]
    first, *final = _tool_calls(case)
    assert shape == [
        ("user", PROMPT, []),
        ("agent", "", [first]),
        # an answer given through the answer tool's call is that step's text
        ("agent", ANSWER, final) if final else ("agent", ANSWER, []),
    ]
    # the agent steps are the model calls, each with its own usage
    metrics = [(s["metrics"]["prompt_tokens"], s["metrics"]["completion_tokens"]) for s in steps[1:]]
    assert metrics == [(u["prompt_tokens"], u["completion_tokens"]) for u in USAGES]
    assert json.dumps(steps)  # plain JSON all the way down
