"""One trial's answers (behaviour, trace, time split, durations, its calls on /api/spans) are kept between reads
(harborlight/api/routes/answers.py), and never past a change: a trial read before its last records arrive answers,
after they arrive, exactly as a trial read only once everything had arrived. From Claude Code's own recording
(tests/real_agents/fixtures), sent in three parts under one trial's name and at once under another's."""

import hashlib
import json
import re

import httpx

from harborlight.cli.main import main
from tests.real_agents.recordings import load

STEM = "claude-code-2.1.197-subagent-grpc"
_EVENT_ID = re.compile(r'"([0-9a-f]{16}(?::[a-z_]+:[0-9]+)?)"')
_TRACE_ID = re.compile(r'"traceId":"([0-9a-f]{32})"')


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


def _by_place(text: str) -> str:
    """`text` with each EventId told by its place: a log record's is a hash over the record, its resource's names
    too, so the same record sent under two names has two."""
    ids: dict[str, str] = {}
    return _EVENT_ID.sub(lambda m: f'"{ids.setdefault(m[1], f"id-{len(ids)}")}"', text)


def _answers(server, trial: str, job: str, names: dict[str, str]) -> dict[str, object]:
    """Every read's answer, the trial's and job's names put back to the recording's."""
    out = {}
    for label, (path, params) in _reads(trial, job).items():
        response = httpx.get(server.http_url + path, params=params)
        assert response.status_code == 200, f"{label}: {response.text}"
        text = response.text
        for name, recorded in names.items():
            text = text.replace(name, recorded)
        out[label] = json.loads(_by_place(text))
    return out


def _send(server, tmp_path, lines: list[str], name: str) -> None:
    path = tmp_path / f"{name}.jsonl"
    path.write_text("\n".join(lines) + "\n")
    assert main(["import", "otlp", "--server", server.http_url, str(path)]) == 0
    server.caught_up()


def test_a_trial_read_while_its_records_arrive_answers_as_one_read_once_they_have(server, tmp_path, unique):
    recording, path = load(STEM)

    def renamed(suffix: str) -> tuple[str, str, list[str], dict[str, str]]:
        """The recording as a run of its own: its job and trial renamed, its traces given ids of their own; and
        the names it was given, each to the recording's."""
        job, trial = f"{recording.job}-{suffix}", f"{recording.trial}-{suffix}"
        text = path.read_text().replace(recording.job, job).replace(recording.trial, trial)
        traces = {t: hashlib.md5((suffix + t).encode()).hexdigest() for t in set(_TRACE_ID.findall(text))}
        text = _TRACE_ID.sub(lambda m: f'"traceId":"{traces[m[1]]}"', text)
        return (
            job,
            trial,
            text.splitlines(),
            {trial: recording.trial, job: recording.job} | {new: old for old, new in traces.items()},
        )

    job, trial, lines, names = renamed(f"parts-{unique}")
    metrics = [line for line in lines if '"resourceMetrics"' in line]
    events = [line for line in lines if line not in metrics]
    assert len(events) == 4 and metrics, "the recording's requests changed: choose the parts again"

    _send(server, tmp_path, events[:2], "first")
    first = _answers(server, trial, job, names)
    _send(server, tmp_path, events[2:], "rest")
    before_metrics = _answers(server, trial, job, names)
    _send(server, tmp_path, metrics, "metrics")  # the producer's totals: no agent event, the trace's `totals`
    last = _answers(server, trial, job, names)

    whole_job, whole_trial, whole, whole_names = renamed(f"whole-{unique}")
    _send(server, tmp_path, whole, "whole")
    once = _answers(server, whole_trial, whole_job, whole_names)

    print(
        {k: (first[k] == once[k], before_metrics[k] == once[k], last[k] == once[k]) for k in once},
        [a["behaviour"]["n_calls"] for a in (first, before_metrics, last, once)],
        [len(a["tool calls"]["items"]) for a in (first, before_metrics, last, once)],
    )
    assert first["behaviour"]["n_calls"] < once["behaviour"]["n_calls"]  # the parts did change the answers
    assert before_metrics["trace"]["totals"] != once["trace"]["totals"]
    for label in once:
        assert last[label] == once[label], label
