"""One trial's answers (behaviour, trace, time split, durations, its calls on /api/spans) are kept between reads
(harborlight/api/routes/answers.py), and never past a change: a trial read before its last records arrive answers,
after they arrive, exactly what it answers derived afresh with nothing kept. From Claude Code's own recording
(tests/real_agents/fixtures), sent in three parts: its first spans and log events, the rest, then its metrics (the
producer's own totals on the trace, records no trial's version follows)."""

import json

import httpx

from harborlight.api.routes import answers
from harborlight.cli.main import main
from tests.real_agents.recordings import load

STEM = "claude-code-2.1.197-subagent-grpc"


def _reads(trial: str, job: str) -> dict[str, tuple[str, dict]]:
    at = {"job": job}
    return {
        "behaviour": (f"/api/trials/{trial}/behavior", at),
        "trace": (f"/api/trials/{trial}/trace", at),
        "trace without tools": (f"/api/trials/{trial}/trace", {**at, "hide": "tool"}),
        "time split": (f"/api/trials/{trial}/time", at),
        "durations": (f"/api/trials/{trial}/durations", at),
        "tool calls": ("/api/spans", {**at, "trial": trial, "kind": "tool"}),
        "model calls": ("/api/spans", {**at, "trial": trial, "kind": "llm_request"}),
    }


def _answers(server, trial: str, job: str) -> dict[str, object]:
    out = {}
    for label, (path, params) in _reads(trial, job).items():
        response = httpx.get(server.http_url + path, params=params)
        assert response.status_code == 200, f"{label}: {response.text}"
        out[label] = response.json()
    return out


def _afresh(server, trial: str, job: str) -> dict[str, object]:
    """The answers derived again, nothing kept (the in-process server's kept answers forgotten)."""
    with answers._lock:
        answers._answers.clear()
    return _answers(server, trial, job)


def _send(server, tmp_path, lines: list[str], name: str) -> None:
    path = tmp_path / f"{name}.jsonl"
    path.write_text("\n".join(lines) + "\n")
    assert main(["import", "otlp", "--server", server.http_url, str(path)]) == 0
    server.caught_up()


def test_a_trial_read_while_its_records_arrive_answers_as_derived_afresh(server, tmp_path, unique):
    recording, path = load(STEM)
    job, trial = f"{recording.job}-{unique}", f"{recording.trial}-{unique}"
    lines = path.read_text().replace(recording.job, job).replace(recording.trial, trial).splitlines()
    metrics = [line for line in lines if '"resourceMetrics"' in line]
    events = [line for line in lines if line not in metrics]
    assert len(events) == 4 and metrics, "the recording's requests changed: choose the parts again"

    _send(server, tmp_path, events[:2], "first")
    first = _answers(server, trial, job)
    assert _answers(server, trial, job) == first  # (kept)
    _send(server, tmp_path, events[2:], "rest")
    rest = _answers(server, trial, job)
    assert rest["behaviour"]["n_calls"] > first["behaviour"]["n_calls"]
    assert rest == _afresh(server, trial, job)
    _answers(server, trial, job)  # kept again
    _send(server, tmp_path, metrics, "metrics")
    last = _answers(server, trial, job)
    assert last["trace"]["totals"] != rest["trace"]["totals"]
    assert json.dumps(last, sort_keys=True) == json.dumps(_afresh(server, trial, job), sort_keys=True)
