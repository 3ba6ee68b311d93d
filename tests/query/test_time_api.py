"""Where the time went, for a job streamed through the receiver (harness spans, agent spans, Claude Code
spans and log events telling the same calls) and an OpenHands-through-Laminar trial with a sub-agent:
GET /api/trials/{trial}/time and /api/jobs/{job}/time."""

import math
import random
import uuid

import httpx
import numpy as np
import pytest

from tests.agent.otlp_build import Traces
from tests.cli.conftest import send_subagent_trial
from tests.query.job_stream import stream_job


@pytest.fixture(scope="module")
def streamed(server):
    unique = uuid.uuid4().hex[:12]
    job = stream_job(server, unique)
    send_subagent_trial(server, f"{job.job}-agents", f"{unique}-subagent")
    return job, f"{unique}-subagent"


def get(server, path: str, **params) -> httpx.Response:
    return httpx.get(f"{server.http_url}{path}", params=params, timeout=60)


def value(field):
    return field["value"]


def test_a_trials_agent_phase_splits_into_model_tool_and_gap(server, streamed):
    job, _ = streamed
    t = get(server, f"/api/trials/{job.resolved}/time").json()
    # tests/query/job_stream.py: a 60 s agent phase; two 0.5 s model calls, four 0.3 s tool calls
    assert t["agent_window_s"] == {"value": 60.0, "provenance": "measured", "note": None}
    assert (value(t["model_time_s"]), value(t["tool_time_s"]), value(t["gap_time_s"])) == (1.0, 1.2, 57.8)
    assert value(t["model_time_by_model"]) == {"gpt-5": 1.0} and value(t["n_timed_calls"]) == 6
    assert value(t["longest_calls"])[0] == {"kind": "llm_request", "name": "gpt-5", "offset_s": 20.0, "duration_s": 0.5}
    path = value(t["critical_path"])
    assert path["length_s"] == 60.0 and path["by_kind"] == {"idle": 57.8, "llm_request": 1.0, "tool": 1.2}
    assert [(s["kind"], s["name"]) for s in path["steps"][:3]] == [
        ("idle", "(no agent span open)"),
        ("llm_request", "gpt-5"),
        ("idle", "(no agent span open)"),
    ]


def test_a_call_told_as_a_span_and_as_a_log_event_is_timed_once(server, streamed):
    job, _ = streamed
    t = get(server, f"/api/trials/{job.failed}/time").json()
    assert value(t["n_timed_calls"]) == 2  # Claude Code's llm_request + tool, each also an api_request / tool_result
    assert value(t["model_time_by_model"]) == {"claude-sonnet-4-5": 0.9}
    assert value(t["tool_time_s"]) == pytest.approx(0.04)


def test_the_critical_path_runs_through_the_sub_agent_the_tool_spawned(server, streamed):
    _, trial = streamed
    t = get(server, f"/api/trials/{trial}/time").json()
    # no harness: the window is the calls' extent, 2 ms to 520 ms (tests/cli/conftest.py)
    assert value(t["agent_window_s"]) == pytest.approx(0.518) and "calls' extent" in t["agent_window_s"]["note"]
    assert value(t["model_time_by_model"]) == pytest.approx({"claude-haiku-4": 0.1, "claude-opus-4": 0.015})
    assert value(t["tool_time_s"]) == pytest.approx(0.4)  # `delegate` while no model call ran
    path = value(t["critical_path"])
    assert path["in_subagents_s"] == pytest.approx(0.4)  # the explorer, 21 ms to 421 ms
    on_path = [(s["kind"], s["name"], s["in_subagent"]) for s in path["steps"]]
    assert ("llm_request", "claude-haiku-4", True) in on_path and ("tool", "terminal", True) in on_path
    assert on_path[0] == ("llm_request", "claude-opus-4", False) and on_path[-1] == ("tool", "delegate", False)
    assert math.isclose(sum(s["duration_s"] for s in path["steps"]), path["length_s"])


def test_a_job_sums_its_finished_trials(server, streamed):
    job, _ = streamed
    total = get(server, f"/api/jobs/{job.job}/time").json()
    finished = (job.resolved, job.failed, job.infra, job.limited)
    trials = [get(server, f"/api/trials/{t}/time").json() for t in finished]
    assert value(total["n_trials"]) == 4  # the running trial waits
    for field in ("agent_window_s", "model_time_s", "tool_time_s", "gap_time_s"):
        known = [value(t[field]) for t in trials if value(t[field]) is not None]
        assert value(total[field]) == pytest.approx(sum(known))
    assert total["model_time_s"]["note"] == "3 of 4 trials have clocked model calls"  # the setup error: none
    assert value(total["model_time_by_model"]) == pytest.approx({"claude-sonnet-4-5": 0.9, "gpt-5": 2.5})


def test_unknown_names_are_404(server, streamed):
    job, _ = streamed
    assert get(server, f"/api/trials/{job.resolved}-nope/time").status_code == 404
    assert get(server, f"/api/jobs/{job.job}-nope/time").status_code == 404


def test_the_engines_unions_agree_with_a_millisecond_timeline(server, unique):
    """Overlapping model and tool calls streamed as OpenTelemetry GenAI spans; the oracle is a numpy
    timeline of milliseconds, each marked when some call covered it."""
    job, trial = f"overlap-{unique}", f"{unique}-overlap"
    traces = Traces({"service.name": f"agent-{unique}", "harbor.job.name": job, "harbor.trial.name": trial})
    rng = random.Random(5)
    model, busy, per_model = (
        np.zeros(60_000, bool),
        np.zeros(60_000, bool),
        {"m-a": np.zeros(60_000, bool), "m-b": np.zeros(60_000, bool)},
    )
    for i in range(40):
        start, dur = rng.randrange(0, 55_000), rng.randrange(1, 5_000)
        if i % 2:
            name = rng.choice(("m-a", "m-b"))
            traces.span(
                f"chat {name}",
                {"gen_ai.operation.name": "chat", "gen_ai.request.model": name},
                start_ms=start,
                dur_ms=dur,
            )
            model[start : start + dur] = per_model[name][start : start + dur] = True
        else:
            traces.span(
                "execute_tool Bash",
                {"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "Bash"},
                start_ms=start,
                dur_ms=dur,
            )
        busy[start : start + dur] = True
    traces.send(server)
    t = get(server, f"/api/trials/{trial}/time").json()
    covered = np.flatnonzero(busy)
    extent = covered[-1] + 1 - covered[0]
    assert value(t["agent_window_s"]) == pytest.approx(extent / 1000)  # no harness: the calls' extent
    assert value(t["model_time_s"]) == pytest.approx(model.sum() / 1000)
    assert value(t["tool_time_s"]) == pytest.approx((busy.sum() - model.sum()) / 1000)
    assert value(t["gap_time_s"]) == pytest.approx((extent - busy.sum()) / 1000)
    assert value(t["model_time_by_model"]) == pytest.approx({m: v.sum() / 1000 for m, v in per_model.items()})
    total = get(server, f"/api/jobs/{job}/time").json()
    assert value(total["model_time_s"]) == value(t["model_time_s"]) and value(total["n_trials"]) == 1


def test_calls_outside_the_harness_agent_phase_are_clipped_to_it(server, unique):
    from tests.query.job_stream import stream_rewards

    job = f"clipped-{unique}"
    stream_rewards(server, job, {"task": 1.0}, unique)  # agent_execution from 10 s to 30 s after T0
    traces = Traces({"service.name": f"agent-{unique}", "harbor.job.name": job, "harbor.trial.name": f"{job}-task"})
    traces.span(
        "chat gpt-5", {"gen_ai.operation.name": "chat", "gen_ai.request.model": "gpt-5"}, start_ms=25_000, dur_ms=10_000
    )  # 5 s of it inside the phase
    traces.span(
        "execute_tool Bash",
        {"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "Bash"},
        start_ms=5_000,
        dur_ms=7_000,
    )  # 2 s inside
    traces.send(server)
    t = get(server, f"/api/trials/{job}-task/time").json()
    assert value(t["agent_window_s"]) == 20.0 and t["agent_window_s"]["provenance"] == "measured"
    assert (value(t["model_time_s"]), value(t["tool_time_s"]), value(t["gap_time_s"])) == (5.0, 2.0, 13.0)
