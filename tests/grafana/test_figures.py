"""The dashboards show the figures the API computes for the same streamed job: solve rates, outcome counts,
trial rows, cost and tokens, tool categories, 429s; and the ingest panels count what was just sent."""

from collections import Counter
from datetime import UTC, datetime, timedelta

import httpx
import pytest

from tests.agent.otlp_build import Traces

JOBS, JOB, TRIAL, INGEST = (
    "harborlight-jobs.json",
    "harborlight-job.json",
    "harborlight-trial.json",
    "harborlight-ingest.json",
)


def api(server, path: str):
    answer = httpx.get(f"{server.http_url}{path}", timeout=300)
    assert answer.status_code == 200, answer.text
    return answer.json()


def values(row: dict) -> dict:
    """An API row with each {value, provenance} field reduced to its value."""
    return {k: v["value"] if isinstance(v, dict) and "provenance" in v else v for k, v in row.items()}


@pytest.fixture(scope="module")
def api_job(server, job) -> dict:
    return values(api(server, f"/api/jobs/{job.job}"))


@pytest.fixture(scope="module")
def api_trials(server, job) -> dict[str, dict]:
    return {r["trial"]: values(r) for r in api(server, f"/api/jobs/{job.job}/trials")["items"]}


def api_outcome(row: dict) -> str:
    return "running" if row["is_running"] else row["outcome"]


def test_job_summary_equals_the_api(grafana, job, api_job):
    shown = grafana.panel(JOB, "Job", {"job": job.job}).only()
    assert shown["raw_solve_rate"] == pytest.approx(api_job["raw_solve_rate"]) == pytest.approx(0.25)
    assert shown["adjusted_solve_rate"] == pytest.approx(api_job["adjusted_solve_rate"]) == pytest.approx(0.5)
    assert (shown["trials"], shown["running_trials"], shown["infra_errors"]) == (
        api_job["n_trials"],
        api_job["n_running"],
        api_job["n_infra"],
    )
    assert shown["cost_usd"] == pytest.approx(api_job["total_cost_usd"])
    assert (shown["input_tokens"], shown["cache_tokens"], shown["output_tokens"]) == (
        api_job["total_input_tokens"],
        api_job["total_cache_tokens"],
        api_job["total_output_tokens"],
    )


def test_outcome_counts_equal_the_api(grafana, job, api_job):
    shown = {r["outcome"]: r["trials"] for r in grafana.panel(JOB, "Outcomes", {"job": job.job}).dicts()}
    expected = {o: n for o, n in api_job["counts"].items() if n} | {"running": api_job["n_running"]}
    assert (
        shown
        == expected
        == {"resolved": 1, "failed_verification": 1, "setup_error": 1, "rate_limited": 1, "running": 1}
    )


def test_trial_rows_equal_the_api(grafana, job, api_trials):
    shown = {r["trial"]: r for r in grafana.panel(JOB, "Trials", {"job": job.job}).dicts()}
    assert set(shown) == set(api_trials)
    for trial, row in api_trials.items():
        mine = shown[trial]
        assert mine["outcome"] == api_outcome(row), trial
        assert (mine["task"], mine["attempt"], mine["reward"], mine["exception"]) == (
            row["task"],
            row["attempt"],
            row["reward"],
            row["exception_type"],
        ), trial
        for col, field in (
            ("total_s", "dur_total"),
            ("env_s", "dur_env"),
            ("agent_setup_s", "dur_agent_setup"),
            ("agent_s", "dur_agent"),
            ("verifier_s", "dur_verifier"),
            ("cost_usd", "cost_usd"),
        ):
            assert mine[col] == pytest.approx(row[field]), (trial, col)
        assert (mine["input_tokens"], mine["output_tokens"]) == (row["n_input_tokens"], row["n_output_tokens"]), trial
        assert mine["tool_calls"] == (row["n_tool_calls"] or 0), trial  # a count: 0 where the API says unavailable
    assert shown[job.limited]["rate_limited_calls"] == api_trials[job.limited]["n_rate_limited_retries"] == 2


def test_graded_trials_show_the_apis_outcome_and_reward(server, grafana, unique):
    """Graded rewards the API reads its own way: several reward keys without a main one (the first numeric
    one counts), a non-numeric key beside a graded one, a score between 0 and 1."""
    job = f"graded-{unique}"
    rewards = {
        "parts": {"harbor.reward.part_b": 1.0, "harbor.reward.part_a": 0.25},
        "noted": {"harbor.reward.a_note": "n/a", "harbor.reward.score": 0.5},
        "half": {"harbor.reward.reward": 0.5},
    }
    for name, attrs in rewards.items():
        harness = Traces({"service.name": "harness", "harbor.job.name": job, "harbor.trial.name": f"{job}-{name}"})
        root = harness.span("harbor.trial", start_ms=0, dur_ms=9_000)
        harness.span("harbor.verifier", attrs, parent=root, start_ms=5_000, dur_ms=3_000)
        harness.send(server)
    api_rows = {r["trial"]: values(r) for r in api(server, f"/api/jobs/{job}/trials")["items"]}
    shown = {r["trial"]: r for r in grafana.panel(JOB, "Trials", {"job": job}).dicts()}
    assert {t: (r["outcome"], r["reward"]) for t, r in shown.items()} == {
        t: (api_outcome(r), r["reward"]) for t, r in api_rows.items()
    }
    assert {t: r["outcome"] for t, r in shown.items()} == {
        f"{job}-parts": "scored",
        f"{job}-noted": "scored",
        f"{job}-half": "scored",
    }


def test_jobs_overview_equals_the_api(grafana, job, api_job):
    other = grafana.panel(JOBS, "Jobs", {"job": [job.job]}).only()
    assert other["job"] == job.job
    assert other["raw_solve_rate"] == pytest.approx(api_job["raw_solve_rate"])
    assert other["adjusted_solve_rate"] == pytest.approx(api_job["adjusted_solve_rate"])
    assert (other["trials"], other["running_trials"], other["resolved"]) == (5, 1, api_job["counts"]["resolved"])
    assert other["cost_usd"] == pytest.approx(api_job["total_cost_usd"])

    mix = grafana.panel(JOBS, "Outcome mix over time", {"job": [job.job]}).dicts()
    totals = Counter()
    for row in mix:
        totals.update({k: v for k, v in row.items() if k != "time"})
    counts = api_job["counts"]
    assert (totals["resolved"], totals["failed"], totals["infra_error"], totals["running"]) == (
        counts["resolved"],
        counts["failed_verification"],
        counts["setup_error"] + counts["rate_limited"] + counts["api_error"],
        api_job["n_running"],
    )

    usage = grafana.panel(JOBS, "Cost and tokens over time", {"job": [job.job]}).dicts()
    assert sum(r["cost_usd"] for r in usage) == pytest.approx(api_job["total_cost_usd"])
    assert sum(r["input_tokens"] for r in usage) == api_job["total_input_tokens"]


def test_tool_categories_and_429s_equal_the_api(server, grafana, job, api_trials):
    categories, failed = Counter(), 0
    for trial in api_trials:
        behavior = values(api(server, f"/api/trials/{trial}/behavior"))
        categories.update(behavior["category_freq"] or {})
        failed += behavior["n_failed_calls"] or 0
    shown = grafana.panel(JOB, "Tool calls by category", {"job": job.job}).dicts()
    assert {r["category"]: r["calls"] for r in shown} == dict(categories)
    assert sum(r["failed"] for r in shown) == failed == 1

    per_interval = grafana.panel(JOB, "Rate limits (429) and server errors", {"job": job.job}).dicts()
    assert (
        sum(r["rate_limited"] for r in per_interval)
        == sum(t["n_rate_limited_retries"] or 0 for t in api_trials.values())
        == 2
    )
    models = {r["model"]: r for r in grafana.panel(JOB, "Models", {"job": job.job}).dicts()}
    assert models["gpt-5"]["rate_limited"] == 2


def _retried_run(resource: dict, start_ms: int) -> Traces:
    run = Traces(resource)
    root = run.span("harbor.trial", start_ms=start_ms, dur_ms=3000)
    run.span("harbor.agent_execution", parent=root, start_ms=start_ms + 100, dur_ms=2000)
    return run


def test_a_retried_trials_earlier_calls_leave_the_job_panels(server, grafana, unique):
    """The job-wide panels read the keeper's rollup of the calls (call_rollups), which follows each resolution: the
    model calls of a retried trial's earlier run, left out once the trial runs again, leave them too."""
    job, trial = f"job-{unique}", f"{unique}-retried"
    resource = {"service.name": "harness", "harbor.job.name": job, "harbor.trial.name": trial}
    agent = Traces({**resource, "service.name": f"agent-{unique}"})
    chat = {"gen_ai.operation.name": "chat", "gen_ai.request.model": "m", "gen_ai.usage.input_tokens": 5}
    agent.span("chat m", {**chat, "http.response.status_code": 429}, start_ms=500, dur_ms=100)
    agent.span("chat m", chat, start_ms=700, dur_ms=100)
    _retried_run(resource, 0).send(server)
    agent.send(server)
    assert api(server, f"/api/trials/{trial}")["trial"] == trial  # (a read waits for the keeper)
    models = grafana.panel(JOB, "Models", {"job": job}).dicts()
    assert [(r["model"], r["calls"], r["rate_limited"], r["input_tokens"], r["cost_usd"]) for r in models] == [
        ("m", 2, 1, 10, None)  # no call reported a cost: none, not 0
    ]
    per_interval = grafana.panel(JOB, "Rate limits (429) and server errors", {"job": job}).dicts()
    assert sum(r["model_calls"] for r in per_interval) == 2

    _retried_run(resource, 5000).send(server)
    assert api(server, f"/api/trials/{trial}")["trial"] == trial
    assert grafana.panel(JOB, "Models", {"job": job}).dicts() == []
    assert grafana.panel(JOB, "Rate limits (429) and server errors", {"job": job}).dicts() == []


def test_trial_panels_equal_the_api(server, grafana, job, api_trials):
    chosen = {"job": job.job, "trial": job.resolved}
    row = api_trials[job.resolved]
    summary = grafana.panel(TRIAL, "Trial", chosen).only()
    assert (summary["outcome"], summary["reward"], summary["model_calls"], summary["tool_calls"]) == (
        "resolved",
        1.0,
        2,
        row["n_tool_calls"],
    )
    assert summary["total_s"] == pytest.approx(row["dur_total"])

    phases = {r["phase"]: r["duration_s"] for r in grafana.panel(TRIAL, "Phases", chosen).dicts()}
    assert phases == pytest.approx(
        {"trial": 100, "environment_setup": 10, "agent_setup": 5, "agent_execution": 60, "verifier": 20}
    )

    calls = grafana.panel(TRIAL, "Model calls", chosen).dicts()
    assert sum(c["input_tokens"] for c in calls) == row["n_input_tokens"]
    assert sum(c["cost_usd"] for c in calls) == pytest.approx(row["cost_usd"])
    by_kind = grafana.panel(TRIAL, "Agent events by kind", chosen).dicts()
    assert sum(r["llm_request"] for r in by_kind) == len(calls) == 2
    assert sum(r["tool"] for r in by_kind) == 4

    behavior = values(api(server, f"/api/trials/{job.resolved}/behavior"))
    tools = grafana.panel(TRIAL, "Tool calls", chosen).dicts()
    assert [t["tool"] for t in tools] == [c["name"] for c in behavior["calls"]] == ["Read", "Edit", "Bash", "Read"]
    failed = grafana.panel(TRIAL, "Tool calls", {"job": job.job, "trial": job.failed}).dicts()
    assert [(t["tool"], t["category"], t["failed"]) for t in failed] == [("Grep", "search", True)]


def test_trace_view_shows_the_trials_spans(server, grafana, job):
    chosen = {"job": job.job, "trial": job.resolved}
    trace_ids = grafana.variable(TRIAL, "trace", chosen)
    assert set(trace_ids) == {t["trace_id"] for t in grafana.panel(TRIAL, "Traces", chosen).dicts()}
    spans = []
    for trace_id in trace_ids:
        shown = grafana.panel(TRIAL, "Trace view ($trace)", {**chosen, "trace": trace_id}).dicts()
        assert {s["traceID"] for s in shown} == {trace_id}
        spans += shown
    assert {s["operationName"] for s in spans} >= {"harbor.trial", "harbor.verifier", "execute_tool Read"}
    assert len(spans) == api(server, f"/api/trials/{job.resolved}/trace")["events"]


def test_ingest_panels_count_what_was_just_sent(grafana, recent):
    window = recent.time_range
    stored = grafana.panel(INGEST, "Rows stored per second (by telemetry time)", {}, window).dicts()
    assert sum(r["spans_per_s"] for r in stored) * window.interval_s >= recent.spans
    assert sum(r["log_records_per_s"] for r in stored) * window.interval_s >= 3
    acked = grafana.panel(INGEST, "Acknowledged items per second (by arrival)", {}, window).dicts()
    assert sum(r["spans_per_s"] for r in acked) * window.interval_s >= recent.spans
    truncated = grafana.panel(INGEST, "Truncated items per second", {}, window).dicts()
    assert sum(r["truncated_spans_per_s"] for r in truncated) * window.interval_s >= recent.truncated
    lag = grafana.panel(INGEST, "Ingest lag", {}, window).only()
    assert 0 <= lag["spans_lag_s"] < 600 and 0 <= lag["last_commit_age_s"] < 600


def _same(mine, theirs) -> bool:
    """Equal, floats within rounding; NULL only equals NULL."""
    return mine is None if theirs is None else mine == pytest.approx(theirs)


def _micros(shown: datetime) -> int:
    return (shown.replace(tzinfo=shown.tzinfo or UTC) - datetime(1970, 1, 1, tzinfo=UTC)) // timedelta(microseconds=1)


def api_calls(server, job: str, trial: str, kind: str) -> list[dict]:
    """The trial's calls of one kind as GET /api/spans lists them (twins once, facts filled), in order."""
    page = api(server, f"/api/spans?job={job}&trial={trial}&kind={kind}&limit=1000")
    assert page["next_cursor"] is None
    return page["items"]


def test_model_call_rows_equal_the_apis_per_call_rows(server, grafana, job):
    """Call by call, the Model calls panel lists what /api/spans lists. The Claude Code trial tells its model
    call as a span (no cost) and as an api_request event (with the cost): one row, with the event's cost."""
    for trial in (job.failed, job.resolved, job.limited):
        shown = grafana.panel(TRIAL, "Model calls", {"job": job.job, "trial": trial}).dicts()
        listed = api_calls(server, job.job, trial, "llm_request")
        assert len(shown) == len(listed), trial
        for mine, call in zip(shown, listed, strict=True):
            assert _micros(mine["time"]) == call["start_unix_nano"] // 1000, trial
            tokens = call["tokens"]
            assert (
                mine["model"],
                mine["http_status"],
                mine["error"],
                mine["input_tokens"],
                mine["cached_tokens"],
                mine["output_tokens"],
                mine["reasoning_tokens"],
            ) == (
                call["model"],
                call["http_status"],
                call["error_type"],
                tokens["input"],
                tokens["cached"],
                tokens["output"],
                tokens["reasoning"],
            ), trial
            assert _same(mine["cost_usd"], call["cost_usd"]), (trial, mine["cost_usd"], call["cost_usd"])
            assert _same(mine["duration_ms"], None if call["duration_ns"] is None else call["duration_ns"] / 1e6)
    claude = grafana.panel(TRIAL, "Model calls", {"job": job.job, "trial": job.failed}).dicts()
    assert [(c["model"], c["input_tokens"], c["cached_tokens"]) for c in claude] == [("claude-sonnet-4-5", 500, 450)]
    assert claude[0]["cost_usd"] == pytest.approx(0.002)  # only the api_request event carries it


def test_tool_call_rows_equal_the_apis_per_call_rows(server, grafana, job):
    """Call by call, the Tool calls panel lists the named tool calls /api/spans lists, with their result.
    The Claude Code trial's Grep is a span (success only inferred) and a tool_result event (failed)."""
    for trial in (job.failed, job.resolved):
        shown = grafana.panel(TRIAL, "Tool calls", {"job": job.job, "trial": trial}).dicts()
        listed = [c for c in api_calls(server, job.job, trial, "tool") if (c["tool"] or {}).get("name")]
        assert len(shown) == len(listed), trial
        for mine, call in zip(shown, listed, strict=True):
            tool = call["tool"]
            assert _micros(mine["time"]) == call["start_unix_nano"] // 1000, trial
            assert (mine["tool"], mine["category"], mine["call_id"], mine["paths"], mine["failed"], mine["error"]) == (
                tool["name"],
                tool["category"],
                tool["call_id"],
                ", ".join(tool["target_paths"]),
                None if call["success"] is None else not call["success"],
                call["error_type"],
            ), trial
    claude = grafana.panel(TRIAL, "Tool calls", {"job": job.job, "trial": job.failed}).dicts()
    assert [(c["tool"], c["call_id"], c["failed"]) for c in claude] == [("Grep", "toolu_1", True)]
