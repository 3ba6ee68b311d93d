"""`harborlight trial TRIAL`: the trial row, its behaviour and where its agent time went, each value
with how it was obtained, missing values shown as missing; --json is the three routes' answers."""

import json

import httpx

from harborlight.api.routes.display import seconds
from tests.cli.commands import run


def api(server, path: str) -> dict:
    return httpx.get(f"{server.http_url}{path}", timeout=60).json()


def row_of(out: str, field: str) -> list[str]:
    """The cells of a field's row in a rendered table."""
    line = next(line for line in out.splitlines() if line.startswith(f"│ {field} "))
    return [cell.strip() for cell in line.strip("│").split("│")]


def test_json_is_the_trial_row_and_its_behaviour(server, jobs, capsys):
    trial = jobs.job.limited
    code, out, _ = run(capsys, "trial", trial, "--server", server.http_url, "--json")
    assert code == 0
    assert json.loads(out) == {
        "trial": api(server, f"/api/trials/{trial}"),
        "behavior": api(server, f"/api/trials/{trial}/behavior"),
        "time": api(server, f"/api/trials/{trial}/time"),
    }


def test_outcome_phase_timings_and_behaviour_as_the_api_has_them(server, jobs, capsys):
    trial = jobs.job.resolved
    row, behavior = api(server, f"/api/trials/{trial}"), api(server, f"/api/trials/{trial}/behavior")
    code, out, _ = run(capsys, "trial", trial, "--server", server.http_url)
    assert code == 0
    assert row_of(out, "outcome")[:2] == ["outcome", "resolved"] and row["outcome"]["value"] == "resolved"
    for phase in ("dur_total", "dur_env", "dur_agent_setup", "dur_agent", "dur_verifier", "dur_other"):
        assert row_of(out, phase)[1:3] == [seconds(row[phase]["value"]), row[phase]["provenance"]]
    assert row_of(out, "dur_agent")[1] == "60.0 s"  # tests/query/job_stream.py: agent=60
    assert row_of(out, "n_input_tokens")[1:3] == ["2,000", "derived"]
    assert row_of(out, "category_freq")[1:3] == ["edit: 1, execute: 1, read: 2", "inferred"]
    assert behavior["category_freq"]["value"] == {"edit": 1, "execute": 1, "read": 2}
    assert row_of(out, "files_touched")[1] == "src/app.py"
    assert row_of(out, "edit_test_cycles")[1] == str(behavior["edit_test_cycles"]["value"])


def test_missing_values_are_missing_with_the_reason_never_zero(server, jobs, capsys):
    code, out, _ = run(capsys, "trial", jobs.job.limited, "--server", server.http_url)
    assert code == 0
    assert row_of(out, "outcome")[1:4] == ["rate_limited", "derived", "ApiRateLimitError"]
    assert row_of(out, "reward") == ["reward", "-", "unavailable", "no verifier reward"]
    assert row_of(out, "dur_verifier") == ["dur_verifier", "-", "unavailable", "no harbor.verifier span"]
    assert row_of(out, "dur_env")[1] == "10.0 s"


def test_a_running_trial_has_no_total_time(server, jobs, capsys):
    code, out, _ = run(capsys, "trial", jobs.job.running, "--server", server.http_url)
    assert code == 0
    assert "│ state " in out and "running" in row_of(out, "state")
    assert row_of(out, "dur_total") == ["dur_total", "-", "unavailable", "trial still running"]


def test_where_the_agent_time_went_with_the_critical_path_through_a_sub_agent(server, jobs, capsys):
    code, out, _ = run(capsys, "trial", jobs.job.resolved, "--server", server.http_url)
    assert code == 0
    assert row_of(out, "agent_window_s")[1:3] == ["60.0 s", "measured"]
    assert [row_of(out, f)[1] for f in ("model_time_s", "tool_time_s", "gap_time_s")] == ["1.00 s", "1.20 s", "57.8 s"]
    assert row_of(out, "model_time_by_model")[1] == "gpt-5: 1.00 s"
    code, out, _ = run(capsys, "trial", jobs.subagent, "--server", server.http_url)
    assert code == 0
    assert "critical path (9 steps)" in out
    path = out[out.index("critical path (9 steps)") :]
    assert row_of(path, "subagent")[1] == "295 ms" and row_of(path, "llm_request")[1] == "115 ms"
    assert row_of(out, "in sub-agents (any kind)")[1] == "400 ms" and row_of(out, "whole path")[1] == "518 ms"
    longest = next(line for line in out.splitlines() if line.startswith("│ tool ") and "delegate" in line)
    assert [c.strip() for c in longest.strip("│").split("│")] == ["tool", "delegate", "18 ms", "500 ms"]
