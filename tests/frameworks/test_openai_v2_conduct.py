"""How the official OpenAI instrumentation's run is understood: the standard GenAI conventions read generically.

opentelemetry-instrumentation-openai-v2 runs for real (a process of its own) against the fake chat provider
(tests/frameworks/chat_provider.py: call 1 answers with the tool call read_file, call 2 with the final answer),
in its GenAI 1.30 mode (content as log events, the input history replayed on every call) and in the latest
experimental mode (gen_ai.input/output.messages); the recordings of both (fixtures/, re-recorded by
tests/frameworks/openai_v2_record.py) replay the same checks without the instrumentation installed. Each
answer is checked against what the fake served: two model calls with their exact usage, the prompt as one
user message, the answer as one output and as the trial's last agent message, and the trajectory's steps.
"""

import importlib.util
import json
import re
import uuid
from dataclasses import dataclass

import httpx
import pytest

from harborlight.cli.main import main
from tests.frameworks.chat_provider import ANSWER, FILE_PATH, PROMPT, TOOL_CALL_ID, USAGES
from tests.frameworks.openai_v2_record import MODES, fixture_names, fixture_path, run
from tests.real_agents.answers import Answers

INSTALLED = importlib.util.find_spec("opentelemetry.instrumentation.openai_v2") is not None
CASES = [(mode, how) for mode in MODES for how in ("live", "replayed")]


@dataclass(frozen=True)
class Case:
    mode: str
    how: str
    answers: Answers


@pytest.fixture(scope="module", params=CASES, ids=[f"{m}-{h}" for m, h in CASES])
def case(request, server, tmp_path_factory) -> Case:
    mode, how = request.param
    export = tmp_path_factory.mktemp("export")
    if how == "replayed":
        service, job, trial = fixture_names(mode)
        assert main(["import", "otlp", "--server", server.http_url, str(fixture_path(mode))]) == 0
    else:
        if not INSTALLED:
            pytest.skip("opentelemetry-instrumentation-openai-v2 is not installed (the replays still run)")
        run_id = uuid.uuid4().hex[:8]
        service, job, trial = f"openai-v2-{run_id}", f"live-openai-v2-{run_id}", f"openai-v2-{run_id}__1"
        assert run(server.grpc_endpoint, server.http_url, mode, service, job, trial).n_requests_served == 2
    server.caught_up()
    return Case(mode, how, Answers(server.http_url, job, trial, export))


def test_each_model_call_is_one_call_with_the_usage_the_fake_served(case):
    calls = case.answers.spans("llm_request")
    assert [(c["tokens"]["input"], c["tokens"]["output"]) for c in calls] == [
        (u["prompt_tokens"], u["completion_tokens"]) for u in USAGES
    ]
    assert [c["model"] for c in calls] == ["gpt-fake-1", "gpt-fake-1"]


def test_the_prompt_is_one_user_message_not_its_replayed_history(case):
    assert len(case.answers.spans("user_message")) == 1
    users = [s for s in case.answers.trajectory["steps"] if s["source"] == "user"]
    assert [s["message"] for s in users] == [PROMPT]


def test_the_answer_is_one_output_and_the_last_agent_message(case):
    assert len(case.answers.spans("output")) == 1
    assert case.answers.behavior["last_agent_message"]["value"] == ANSWER


def test_the_trajectory_is_the_prompt_the_tool_call_and_the_answer(case):
    steps = case.answers.trajectory["steps"]
    shape = [
        (
            s["source"],
            s["message"],
            [(c["tool_call_id"], c["function_name"], c["arguments"]) for c in s.get("tool_calls") or []],
        )
        for s in steps
    ]
    assert shape == [
        ("user", PROMPT, []),
        ("agent", "", [(TOOL_CALL_ID, "read_file", {"path": FILE_PATH})]),
        ("agent", ANSWER, []),
    ]
    # the agent steps are the model calls, each with its own usage
    metrics = [(s["metrics"]["prompt_tokens"], s["metrics"]["completion_tokens"]) for s in steps[1:]]
    assert metrics == [(u["prompt_tokens"], u["completion_tokens"]) for u in USAGES]
    assert json.dumps(steps)  # plain JSON all the way down


def _without_harness(path, service: str, out) -> None:
    """The recording as the instrumentation sends it outside Harbor: no harbor.* resource attributes (and trace
    ids of its own: the store holds the recording's traces, named by their harness)."""
    lines, traces = [], {}
    for line in path.read_text().splitlines():
        line = re.sub(
            r'"traceId":"([0-9a-f]{32})"', lambda m: f'"traceId":"{traces.setdefault(m[1], uuid.uuid4().hex)}"', line
        )
        request = json.loads(line)
        for resource in request.get("resourceSpans", []) + request.get("resourceLogs", []):
            attributes = [a for a in resource["resource"]["attributes"] if not a["key"].startswith("harbor.")]
            for a in attributes:
                if a["key"] == "service.name":
                    a["value"] = {"stringValue": service}
            resource["resource"]["attributes"] = attributes
        lines.append(json.dumps(request))
    out.write_text("\n".join(lines) + "\n")


@pytest.mark.parametrize("mode", MODES)
def test_without_a_harness_the_run_is_one_trial(server, unique, tmp_path, mode):
    recording = tmp_path / "run.jsonl"
    _without_harness(fixture_path(mode), unique, recording)
    assert main(["import", "otlp", "--server", server.http_url, str(recording)]) == 0
    server.caught_up()
    calls = httpx.get(
        f"{server.http_url}/api/spans", params={"service": unique, "kind": "llm_request"}, timeout=120
    ).json()["items"]
    assert len(calls) == 2
    assert len({c["trial"] for c in calls}) == 1
