"""A job streamed through the receiver (harness lifecycle spans, agent spans, Claude Code log events)
answers the job, trial, behaviour, report and compare routes with the outcomes, timings and metrics
a user expects — while one trial is still running."""

import json

import httpx
import pytest

from tests.query.job_stream import stream_job


@pytest.fixture(scope="module")
def streamed(server):
    import uuid

    return stream_job(server, uuid.uuid4().hex[:12])


def get(server, path: str, **params) -> httpx.Response:
    return httpx.get(f"{server.http_url}{path}", params=params, timeout=30)


def value(field: dict):
    return field["value"]


def test_trial_rows_have_outcomes_and_phase_timings(server, streamed):
    page = get(server, f"/api/jobs/{streamed.job}/trials").json()
    rows = {r["trial"]: r for r in page["items"]}
    assert page["next_cursor"] is None and len(rows) == 5
    outcome = {t: value(r["outcome"]) for t, r in rows.items()}
    assert outcome == {
        streamed.resolved: "resolved",
        streamed.failed: "failed_verification",
        streamed.infra: "setup_error",
        streamed.limited: "rate_limited",
        streamed.running: None,
    }

    resolved = rows[streamed.resolved]
    assert [
        value(resolved[f])
        for f in ("dur_total", "dur_env", "dur_agent_setup", "dur_agent", "dur_verifier", "dur_other")
    ] == pytest.approx([100, 10, 5, 60, 20, 5])
    assert value(resolved["reward"]) == 1.0 and resolved["source"] == "demo@1" and resolved["attempt"] == 1
    assert (
        value(resolved["n_input_tokens"]),
        value(resolved["n_cache_tokens"]),
        value(resolved["n_output_tokens"]),
    ) == (2000, 800, 200)
    assert value(resolved["cost_usd"]) == pytest.approx(0.02)
    assert (value(resolved["n_steps"]), value(resolved["n_tool_calls"])) == (2, 4)

    assert value(rows[streamed.failed]["reward"]) == 0.0
    assert value(rows[streamed.failed]["n_input_tokens"]) == 500  # Claude Code events: input + cache reads
    infra = rows[streamed.infra]
    assert value(infra["exception_type"]) == "EnvironmentStartTimeoutError" and value(infra["dur_agent"]) is None
    assert infra["dur_agent"]["provenance"] == "unavailable"
    limited = rows[streamed.limited]
    assert value(limited["n_rate_limited_retries"]) == 2 and value(limited["n_steps"]) == 1

    running = rows[streamed.running]
    assert running["is_running"] is True and value(running["dur_total"]) is None
    assert value(running["dur_env"]) == pytest.approx(10)
    assert running["outcome"]["note"] == "trial still running"


def test_job_row_counts_infra_out_of_the_adjusted_rate_while_running(server, streamed):
    job = get(server, f"/api/jobs/{streamed.job}").json()
    assert value(job["n_trials"]) == 5 and value(job["n_running"]) == 1 and value(job["is_running"]) is True
    assert value(job["raw_solve_rate"]) == pytest.approx(1 / 4)
    assert value(job["adjusted_solve_rate"]) == pytest.approx(1 / 2)
    assert value(job["n_infra"]) == 2
    counts = value(job["counts"])
    assert (
        counts["resolved"],
        counts["failed_verification"],
        counts["setup_error"],
        counts["rate_limited"],
        counts["unknown"],
    ) == (1, 1, 1, 1, 0)
    assert value(job["duration_min"]) is None  # a running job has no wall time yet
    assert value(job["dataset"]) == "demo@1" and value(job["agent_label"]) == "codex"
    assert value(job["total_input_tokens"]) == 2000 + 500 + 1000
    assert job["pass_at_k"]["pass_at_k"]["provenance"] == "unavailable"  # one attempt per task
    assert job["n_planned"]["value"] is None and job["n_planned"]["provenance"] == "unavailable"  # never sent

    listed = get(server, "/api/jobs", limit=200).json()
    pages, cursor = [listed], listed["next_cursor"]
    while cursor:
        pages.append(get(server, "/api/jobs", limit=200, cursor=cursor).json())
        cursor = pages[-1]["next_cursor"]
    mine = [j for p in pages for j in p["items"] if j["job"] == streamed.job]
    assert len(mine) == 1 and value(mine[0]["raw_solve_rate"]) == pytest.approx(0.25)


def test_job_rates_carry_their_interval_over_tasks(server, streamed):
    """Independent oracle: statsmodels' Wilson interval (one attempt per task: a share of tasks)."""
    from statsmodels.stats.proportion import proportion_confint

    job = get(server, f"/api/jobs/{streamed.job}").json()
    for field, (passed, n) in (
        ("raw_solve_rate_ci", (1, 4)),
        ("adjusted_solve_rate_ci", (1, 2)),
        ("mean_score_ci", (1, 2)),
    ):
        ci = job[field]
        assert ci["provenance"] == "derived" and ci["note"] == f"Wilson, {passed}/{n} tasks"
        assert (ci["value"]["low"], ci["value"]["high"]) == pytest.approx(
            proportion_confint(passed, n, alpha=0.05, method="wilson")
        )
        assert ci["value"] | {"low": None, "high": None} == {
            "low": None,
            "high": None,
            "level": 0.95,
            "method": "wilson",
            "n_tasks": n,
            "resamples": None,
            "seed": None,
        }
    assert job["pass_at_k"]["pass_at_k_ci"] == job["pass_at_k"]["pass_at_k"]  # no series, same reason


def test_report_intervals_sit_beside_metrics_json(server, streamed):
    from statsmodels.stats.proportion import proportion_confint

    metrics = get(server, f"/api/jobs/{streamed.job}/report", format="json").json()
    beside = get(server, f"/api/jobs/{streamed.job}/report", format="intervals")
    assert beside.headers["content-type"].startswith("application/json")
    doc = beside.json()
    assert set(doc["series"]) == {s["series_id"] for s in metrics["series"]} == {"correct.native@1", "reward.native@1"}
    correct = doc["series"]["correct.native@1"]
    # the evaluation failed (FATAL setup and rate-limit issues): the interval is of the reference value
    assert doc["evaluation_failed"] is True and correct["value"] is None and correct["reference_value"] == 0.5
    assert (correct["interval"]["value"]["low"], correct["interval"]["value"]["high"]) == pytest.approx(
        proportion_confint(1, 2, alpha=0.05, method="wilson")
    )
    other = get(server, f"/api/jobs/{streamed.job}/report", format="intervals", aggregation="category_mean").json()
    assert other["series"]["correct.native@1"]["interval"]["value"] is None
    assert "micro_weighted" in other["series"]["correct.native@1"]["interval"]["note"]


def test_trial_and_behavior_routes(server, streamed):
    trial = get(server, f"/api/trials/{streamed.resolved}").json()
    assert trial["job"] == streamed.job and value(trial["outcome"]) == "resolved"

    behavior = get(server, f"/api/trials/{streamed.resolved}/behavior").json()
    assert [c["name"] for c in behavior["calls"]] == ["Read", "Edit", "Bash", "Read"]
    assert value(behavior["category_freq"]) == {"edit": 1, "execute": 1, "read": 2}
    assert value(behavior["files_touched"]) == ["src/app.py"]
    assert value(behavior["first_edit_call"]) == 1 and value(behavior["edit_test_cycles"]) == 1
    assert value(behavior["n_redundant_reads"]) == 0  # the edit in between makes the second read fresh
    assert value(behavior["time_to_first_edit"]) == pytest.approx(20 + 5 + 2)  # from agent_execution start
    assert value(behavior["cache_ratio"]) == pytest.approx(0.4)
    assert value(behavior["total_reasoning_tokens"]) is None

    logged = get(server, f"/api/trials/{streamed.failed}/behavior").json()
    assert [(c["name"], c["category"], c["failed"]) for c in logged["calls"]] == [("Grep", "search", True)]
    assert value(logged["n_failed_calls"]) == 1

    assert get(server, f"/api/trials/{streamed.resolved}-nope").status_code == 404
    assert get(server, f"/api/trials/{streamed.resolved}-nope/behavior").status_code == 404


def test_report_is_agentcompass_metrics_json_and_summary(server, streamed):
    doc = get(server, f"/api/jobs/{streamed.job}/report", format="json")
    assert doc.headers["content-type"].startswith("application/json")
    report = json.loads(doc.text)
    correct = next(s for s in report["series"] if s["metric_id"] == "correct")
    # 5 tasks: the setup error and the rate limit are FATAL (invalidated), the running trial is missing.
    assert correct["counts"] == {"total": 5, "evaluated": 2, "error": 3, "unavailable": 1, "invalidated": 2}
    assert report["evaluation_failed"] is True and correct["reference_value"] == pytest.approx(0.5)

    md = get(server, f"/api/jobs/{streamed.job}/report", format="md")
    assert md.text.startswith("# DEMO@1 Evaluation Results") and "**Model:** `gpt-5`" in md.text
    assert get(server, f"/api/jobs/{streamed.job}/report", format="xml").status_code == 400
    assert get(server, f"/api/jobs/{streamed.job}/report", strategy="best").status_code == 400
    assert get(server, f"/api/jobs/{streamed.job}/report", k=0).status_code == 400
    assert get(server, f"/api/jobs/{streamed.job}-nope/report").status_code == 404


def test_compare_and_bad_parameters(server, streamed):
    same = get(server, "/api/compare", jobs=f"{streamed.job},{streamed.job}")
    assert same.status_code == 400
    assert get(server, "/api/compare", jobs=streamed.job).status_code == 400
    missing = get(server, "/api/compare", jobs=f"{streamed.job},{streamed.job}-nope")
    assert missing.status_code == 404 and "-nope" in missing.json()["detail"]
    assert get(server, f"/api/jobs/{streamed.job}-nope").status_code == 404
    assert get(server, f"/api/jobs/{streamed.job}/trials", cursor="garbage!").status_code == 400
    assert get(server, f"/api/jobs/{streamed.job}/trials", limit=0).status_code == 400
    assert get(server, "/api/jobs", limit="ten").status_code == 400


def test_trial_list_pages_by_cursor(server, streamed):
    first = get(server, f"/api/jobs/{streamed.job}/trials", limit=2).json()
    pages, cursor = [first], first["next_cursor"]
    while cursor:
        pages.append(get(server, f"/api/jobs/{streamed.job}/trials", limit=2, cursor=cursor).json())
        cursor = pages[-1]["next_cursor"]
    names = [t["trial"] for p in pages for t in p["items"]]
    assert names == sorted([streamed.resolved, streamed.failed, streamed.infra, streamed.limited, streamed.running])


def test_compare_matches_tasks_and_shows_flips(server, streamed):
    import uuid

    better = stream_job(server, uuid.uuid4().hex[:12], failed_reward=1.0)
    result = get(server, "/api/compare", jobs=f"{streamed.job},{better.job}").json()
    assert result["jobs"] == [streamed.job, better.job] and value(result["matched_tasks"]) == 5
    flips = {r["task"]: r["flip"] for r in result["rows"]}
    assert flips["add-feature"] == "gained" and value(result["n_flips"]) == 1
    assert value(result["differences"][better.job]["raw_solve_rate"]) == pytest.approx(0.25)
    assert value(result["metrics"][better.job]["duration_min"]) is None
    paired = result["paired"][better.job]  # 2 tasks with a verdict on both sides; infra and running left out
    assert (value(paired["n_tasks"]), value(paired["n_excluded"]), value(paired["n_better"])) == (2, 3, 1)
    assert value(paired["p_value"]) == 1.0 and value(paired["difference_ci"]) is None
    assert paired["verdict"].startswith(
        f"no detectable difference between {better.job} and {streamed.job} on these 2 tasks: solve rate +50.0 points"
    )


def test_compare_pairs_the_jobs_task_by_task_with_mcnemar_and_a_verdict(server):
    """Two streamed jobs on 12 tasks: B keeps A's 3 solves and gains 8. Oracle: statsmodels' exact McNemar."""
    import uuid

    from statsmodels.stats.contingency_tables import mcnemar

    from tests.query.job_stream import stream_rewards

    unique = uuid.uuid4().hex[:12]
    a, b = f"pair-a-{unique}", f"pair-b-{unique}"
    stream_rewards(server, a, {f"task-{i:02}": float(i < 3) for i in range(12)}, unique)
    stream_rewards(server, b, {f"task-{i:02}": float(i < 11) for i in range(12)}, unique)
    result = get(server, "/api/compare", jobs=f"{a},{b}").json()
    p = result["paired"][b]
    assert p["measure"] == "solved" and p["test"] == "mcnemar_exact" and value(p["n_tasks"]) == 12
    assert (value(p["n_better"]), value(p["n_worse"]), value(p["n_tied"])) == (8, 0, 4)
    assert [t["task"] for t in p["better_tasks"]] == [f"task-{i:02}" for i in range(3, 11)]
    assert p["better_tasks"][0] == {"dataset": "demo@1", "task": "task-03", "baseline": 0.0, "value": 1.0}
    assert value(p["p_value"]) == pytest.approx(mcnemar([[3, 0], [8, 1]], exact=True).pvalue)
    assert value(p["mean_difference"]) == pytest.approx(8 / 12)
    ci = value(p["difference_ci"])
    assert ci["method"] == "bootstrap" and ci["n_tasks"] == 12 and 0 < ci["low"] < 8 / 12 < ci["high"] <= 1
    assert p["verdict"] == (
        f"{b} is better than {a} on these 12 tasks: solve rate +66.7 points, 95% CI "
        f"{ci['low'] * 100:+.1f} to {ci['high'] * 100:+.1f} points (McNemar exact p = 0.0078)"
    )
