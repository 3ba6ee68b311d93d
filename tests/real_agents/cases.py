"""A case: one recorded run of an agent, what harborlight should answer about it, and its answers."""

import uuid
from dataclasses import dataclass
from pathlib import Path

import pytest

from harborlight.cli.main import main
from tests.real_agents.answers import Answers
from tests.real_agents.expected import Expected, expect
from tests.real_agents.recordings import Recording, load
from tests.real_agents.run_agent import AGENTS, run_agent


@dataclass(frozen=True)
class Case:
    recording: Recording
    expected: Expected
    answers: Answers

    @property
    def one_root(self) -> bool:
        return self.recording.traces and AGENTS[self.recording.agent].ONE_ROOT

    @property
    def mix(self) -> str:
        return "logs+traces" if self.recording.traces else "logs"


def replayed(stem: str, server, tmp: Path) -> Case:
    """A fixture stored through `harborlight import otlp --server`, as a user would replay it."""
    recording, path = load(stem)
    assert main(["import", "otlp", "--server", server.http_url, str(path)]) == 0
    server.caught_up()  # stored, not only acknowledged: a read waits for the committer only so long
    return Case(recording, expect(recording), Answers(server.http_url, recording.job, recording.trial, tmp / "export"))


def _model_call_spans(otlp_lines: list[str], traces: bool) -> int:
    """opencode's model-call spans among the export requests it sent: the AI SDK's ai.streamText.doStream
    (experimental.openTelemetry), else its own LLM.run."""
    name = "ai.streamText.doStream" if traces else "LLM.run"
    return sum(line.count(f'"name":"{name}"') + line.count(f'"name": "{name}"') for line in otlp_lines)


def live(agent: str, episode: str, protocol: str, traces: bool, server, tmp: Path) -> Case:
    """The agent run now against the fake provider, its telemetry streamed to the running server."""
    run_id = uuid.uuid4().hex[:8]
    run = run_agent(
        agent,
        episode,
        protocol,
        traces,
        server,
        tmp / "run",
        job=f"live-{agent}-{episode}-{run_id}",
        trial=f"{episode}-{protocol}-{'traces' if traces else 'logs'}-{run_id}",
    )
    assert run.exit_code == 0, f"{agent} exited {run.exit_code}: {run.stderr[-2000:]}"
    assert run.script.finished, f"{agent} did not play the script to its end: {run.script.unscripted[:1]}"
    assert not run.refused, f"harborlight refused export requests: {run.refused}"
    server.caught_up()  # what it acknowledged is stored (a loaded machine's commits lag past a read's wait)
    recording = run.recording(tmp / "run" / "workspace")
    if agent == "opencode" and (sent := _model_call_spans(run.otlp_lines, traces)) < len(recording.served):
        # opencode exits without flushing its span batch: on a loaded machine its last spans never leave it
        pytest.skip(
            f"opencode sent {sent} model-call spans for {len(recording.served)} calls served: it lost "
            "the rest at exit (the replays of its complete recordings still run)"
        )
    return Case(recording, expect(recording), Answers(server.http_url, recording.job, recording.trial, tmp / "export"))
