"""One trial, one state: the trial row (the API and `harborlight trial`), the jobs' running counts
(`harborlight jobs`) and the live board (`harborlight watch`) all say what read/derive/trial_state.py
decides: a trial whose root span ended is finished, one with a Harbor phase ended and no root yet is
running, one with neither (an agent's telemetry without a harness) is unknown."""

import re

import httpx
import pytest

from harborlight.api.routes import cursor
from harborlight.cli.watch_command import TrialBoard, live_events
from harborlight.read.derive.trial_state import TrialState, row_state, trial_state
from tests.agent.otlp_build import Traces
from tests.cli.commands import run


@pytest.mark.parametrize(
    ("root_ended", "phase_ended", "state"),
    [
        (True, True, TrialState.FINISHED),
        (True, False, TrialState.FINISHED),
        (False, True, TrialState.RUNNING),
        (False, False, TrialState.UNKNOWN),
    ],
)
def test_the_rule(root_ended, phase_ended, state):
    assert trial_state(root_ended, phase_ended) is state


def _send(server, job: str) -> dict[str, TrialState]:
    def traces(trial: str) -> Traces:
        return Traces({"service.name": f"agent-{trial}", "harbor.job.name": job, "harbor.trial.name": trial})

    ended = traces(f"{job}-ended")
    root = ended.span("harbor.trial", {}, start_ms=0, dur_ms=5000)
    ended.span("harbor.environment_setup", {}, parent=root, start_ms=10, dur_ms=100)
    ended.span("harbor.verifier", {"harbor.reward.reward": 1.0}, parent=root, start_ms=4000, dur_ms=500)
    ended.send(server)
    open_ = traces(f"{job}-open")  # the root span has not ended: it was never sent
    open_.span("harbor.environment_setup", {}, parent=b"\x01" * 8, start_ms=10, dur_ms=100)
    open_.span(
        "chat gpt-5",
        {"gen_ai.operation.name": "chat", "gen_ai.request.model": "gpt-5"},
        parent=b"\x01" * 8,
        start_ms=200,
        dur_ms=50,
    )
    open_.send(server)
    bare = traces(f"{job}-bare")  # an agent's own spans, no harness
    bare.span("chat gpt-5", {"gen_ai.operation.name": "chat", "gen_ai.request.model": "gpt-5"}, dur_ms=50)
    bare.send(server)
    server.caught_up()
    return {f"{job}-ended": TrialState.FINISHED, f"{job}-open": TrialState.RUNNING, f"{job}-bare": TrialState.UNKNOWN}


def test_a_trial_has_one_state_in_the_api_trial_jobs_and_watch(server, unique, capsys):
    job = f"state-{unique}"
    expected = _send(server, job)
    for trial, state in expected.items():
        row = httpx.get(f"{server.http_url}/api/trials/{trial}", params={"job": job}, timeout=120).json()
        assert row_state(row["is_running"], row["finished_at"]) is state, trial
        code, out, err = run(capsys, "trial", trial, "--job", job, "--server", server.http_url)
        assert code == 0, err
        assert re.search(rf"│ state\s+│ {state.value}\b", out), out
    job_row = httpx.get(f"{server.http_url}/api/jobs/{job}", timeout=120).json()
    assert job_row["n_running"]["value"] == 1
    # the session's store holds other tests' jobs: the listing starts just before this one's name (a page of 50)
    just_before = cursor.encode([job[:-1]])
    code, out, err = run(capsys, "jobs", "--server", server.http_url, "--cursor", just_before)
    assert code == 0 and re.search(rf"│ {job}\s+│\s+3 │\s+1 │", out), out
    board = TrialBoard(job)
    for event in live_events(server.http_url, job, None):
        board.apply(event)
        if (
            sum(e.phase_ended or e.root_ended for e in board.trials.values()) == 2
            and len(board.trials) == 3
            and board.trials[f"{job}-ended"].root_ended
        ):
            break
    assert {trial: line.state for trial, line in board.trials.items()} == expected
