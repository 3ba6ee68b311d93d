"""The AgentCompass report equals what agentcompass 1.0.1's own functions compute from the same
attempts: same series, counts, categories, hierarchy and values (to 1e-12), same summary.md."""

import json
import math

import pytest
from agentcompass.runtime.metrics.contract import make_metric_contract
from agentcompass.runtime.metrics.report_aggregation import aggregate_metric_report
from agentcompass.runtime.results.render import render_summary_markdown

from harborlight.read.derive.agentcompass import agentcompass_report, build_report, metrics_json_text, to_json
from harborlight.read.derive.agentcompass_attempts import CONTRACTS, plan_k, task_attempts, to_details
from harborlight.read.derive.agentcompass_summary import render_summary
from tests.unit.read.derive.builders import trial

AC_CONTRACTS = {
    "correct": make_metric_contract(primary="correct", binary=("correct",), scalar=("reward",)),
    "score": make_metric_contract(primary="score", scalar=("score",)),
}
HIERARCHY = {
    "overall": {
        "aggregation": "weighted",
        "children": {
            "core": {"aggregation": "unweighted", "children": {"easy": {}, "hard": {}}},
            "extra": {"aggregation": "weighted_by_count", "children": {"misc": {}, "empty": {}}},
        },
    }
}
HIERARCHY_WEIGHTS = {
    "overall": {
        "aggregation": "weighted",
        "children": {
            "core": {"aggregation": "unweighted", "weight": 3, "children": {"easy": {}, "hard": {}}},
            "extra": {"aggregation": "weighted_by_count", "weight": 1, "children": {"misc": {}, "empty": {}}},
        },
    }
}


def assert_close(ours, theirs, path="$"):
    if isinstance(theirs, float) and isinstance(ours, float):
        assert math.isclose(ours, theirs, rel_tol=0, abs_tol=1e-12), f"{path}: {ours} != {theirs}"
    elif isinstance(theirs, dict):
        assert isinstance(ours, dict) and set(ours) == set(theirs), f"{path}: keys {set(ours) ^ set(theirs)}"
        for key in theirs:
            assert_close(ours[key], theirs[key], f"{path}.{key}")
    elif isinstance(theirs, list):
        assert isinstance(ours, list) and len(ours) == len(theirs), f"{path}: length"
        for i, (a, b) in enumerate(zip(ours, theirs, strict=True)):
            assert_close(a, b, f"{path}[{i}]")
    else:
        assert ours == theirs and type(ours) is type(theirs), f"{path}: {ours!r} != {theirs!r}"


def check(
    trials, *, strategy="avg", primary="correct", aggregation_mode="micro_weighted", category_hierarchy=None, k=None
):
    tasks = task_attempts(trials, primary)
    k = plan_k(tasks, k)
    ours = build_report(
        tasks,
        CONTRACTS[primary],
        k=k,
        strategy=strategy,
        aggregation_mode=aggregation_mode,
        category_hierarchy=category_hierarchy,
    )
    theirs = aggregate_metric_report(
        to_details(tasks, k=k, strategy=strategy),
        contract=AC_CONTRACTS[primary],
        k=k,
        strategy=strategy,
        aggregation_mode=aggregation_mode,
        category_hierarchy=category_hierarchy,
    )
    theirs_doc = json.loads(json.dumps(theirs.model_dump(mode="json")))
    assert_close(json.loads(metrics_json_text(ours)), theirs_doc)
    # Same operation order (fsum of divided terms) as AgentCompass, so even the bytes agree.
    assert metrics_json_text(ours) == json.dumps(theirs_doc, indent=2, ensure_ascii=False, sort_keys=True) + "\n"
    assert render_summary(ours, model="m-1", benchmark="harbor") == render_summary_markdown("m-1", "HARBOR", theirs)
    return to_json(ours)


def repeated(task, verdicts, category=None, **kw):
    """Attempts 1..n of `task`: True/False resolved/failed, a float a graded reward, None no verdict,
    a str an exception with no reward."""
    out = []
    for i, v in enumerate(verdicts, start=1):
        if isinstance(v, str):
            out.append(trial(task, attempt=i, exception=v, category=category, **kw))
        elif isinstance(v, bool):
            out.append(trial(task, attempt=i, reward=1.0 if v else 0.0, category=category, **kw))
        else:
            out.append(trial(task, attempt=i, reward=v, category=category, **kw))
    return out


BINARY_JOB = [
    *repeated("a", [True, True, True], category="easy"),
    *repeated("b", [True, False, False], category="easy"),
    *repeated("c", [False, False, False], category="hard"),
    *repeated("d", [False, None, True], category="hard"),  # an attempt without a verdict
    *repeated("e", [True, "AgentTimeoutError", False], category="misc"),  # errored, no reward
    *repeated("f", [False, False], category="misc"),  # a missing third attempt
]


@pytest.mark.parametrize("strategy", ["avg", "pass"])
def test_binary_job_matches_agentcompass(strategy):
    doc = check(BINARY_JOB, strategy=strategy)
    first = doc["series"][0]
    assert first["series_id"] == f"correct.{strategy}@3"
    assert first["counts"]["total"] == 6


def test_avg_series_leaves_incomplete_tasks_out_of_the_denominator():
    doc = check(BINARY_JOB, strategy="avg")
    avg = doc["series"][0]
    assert avg["counts"] == {"total": 6, "evaluated": 3, "error": 2, "unavailable": 3, "invalidated": 0}
    assert avg["value"] == pytest.approx((1 + 1 / 3 + 0) / 3)


def test_pass_strategy_forgives_attempts_skipped_after_a_success():
    trials = [
        *repeated("a", [True], category="easy"),
        *repeated("b", [False, True]),
        *repeated("c", [False, False, False]),
    ]
    doc = check(trials, strategy="pass")
    assert [s["series_id"] for s in doc["series"]] == ["correct.pass@3"]
    assert doc["series"][0]["counts"]["error"] == 0
    assert doc["series"][0]["value"] == pytest.approx(2 / 3)


def test_scalar_job_with_categories_matches_agentcompass():
    trials = [
        *repeated("a", [0.5, 0.25], category="easy"),
        *repeated("b", [1.0, 0.0], category="easy"),
        *repeated("c", [0.3, 0.9], category="hard"),
        *repeated("d", [0.7, "VerifierTimeoutError"], category=None),
    ]
    for mode in ("micro_weighted", "category_mean"):
        doc = check(trials, primary="score", aggregation_mode=mode)
        assert [s["series_id"] for s in doc["series"]] == ["score.avg@2"]
        assert set(doc["series"][0]["categories"]) == {"easy", "hard", "__uncategorized__"}


def test_single_attempt_reports_native_series_and_category_tables():
    trials = [
        trial("a", reward=1.0, category="easy"),
        trial("b", reward=0.0, category="hard"),
        trial("c", category="hard"),
        trial("d", exception="NonZeroAgentExitCodeError", reward=0.0),
    ]
    doc = check(trials, category_hierarchy=HIERARCHY_WEIGHTS)
    assert [s["series_id"] for s in doc["series"]] == ["correct.native@1", "reward.native@1"]


@pytest.mark.parametrize("hierarchy", [HIERARCHY, HIERARCHY_WEIGHTS])
def test_hierarchy_matches_agentcompass(hierarchy):
    weighted = hierarchy is HIERARCHY_WEIGHTS
    trials = BINARY_JOB + repeated("g", [True, True, False], category="unlisted")
    if not weighted:
        with pytest.raises(ValueError):
            check(trials, category_hierarchy=hierarchy)
        return
    doc = check(trials, category_hierarchy=hierarchy)
    assert doc["aggregation"] == "category_hierarchy"
    assert "overall/extra/empty" in doc["series"][0]["hierarchy"]


def test_hierarchy_by_count_and_unweighted_match_agentcompass():
    tree = {
        "overall": {
            "aggregation": "weighted_by_count",
            "children": {"core": {"aggregation": "unweighted", "children": {"easy": {}, "hard": {}}}, "misc": {}},
        }
    }
    check(BINARY_JOB, category_hierarchy=tree)
    check(BINARY_JOB, category_hierarchy=tree, strategy="pass")


def test_infrastructure_failure_invalidates_the_official_score_as_agentcompass_does():
    trials = [
        *repeated("a", [True, True]),
        *repeated("b", [False, "ApiRateLimitError"]),
        *repeated("c", [True, "SandboxBuildFailedError"]),
    ]
    doc = check(trials)
    assert doc["evaluation_failed"] is True
    first = doc["series"][0]
    assert first["value"] is None and first["reference_value"] == 1.0
    assert first["counts"]["invalidated"] == 2
    assert "**Evaluation failed:**" in render_summary(agentcompass_report(trials), model="m", benchmark="x")


def test_running_and_cancelled_trials_are_missing_attempts():
    trials = [
        *repeated("a", [True]),
        trial("a", attempt=2, running=True),
        *repeated("b", [False]),
        trial("b", attempt=2, exception="CancelledError"),
        trial("c", attempt=1, running=True),
    ]
    doc = check(trials, k=2)
    assert doc["series"][0]["counts"] == {"total": 3, "evaluated": 0, "error": 3, "unavailable": 3, "invalidated": 0}
    check(trials, k=2, strategy="pass")


def test_agent_timeout_with_a_reward_is_scored_and_counted_as_an_error():
    trials = [
        trial("a", attempt=1, reward=1.0, exception="AgentTimeoutError"),
        trial("a", attempt=2, reward=0.0, exception="AgentTimeoutError"),
    ]
    doc = check(trials)
    avg = doc["series"][0]
    assert avg["value"] == 0.5 and avg["counts"]["error"] == 1 and avg["counts"]["evaluated"] == 1


def test_auto_contract_picks_score_for_graded_jobs():
    graded = agentcompass_report([trial("a", reward=0.4), trial("b", reward=1.0)])
    binary = agentcompass_report([trial("a", reward=0.0), trial("b", reward=1.0)])
    assert [s["metric_id"] for s in graded["series"]] == ["score"]
    assert [s["metric_id"] for s in binary["series"]] == ["correct", "reward"]


def test_pass_strategy_on_a_scored_job_is_rejected_like_agentcompass():
    with pytest.raises(ValueError):
        agentcompass_report([trial("a", reward=0.4)], strategy="pass")


VERDICTS = [
    True,
    False,
    None,
    0.0,
    1.0,
    "AgentTimeoutError",
    "ApiRateLimitError",
    "VerifierTimeoutError",
    "RuntimeError",
    "CancelledError",
    "running",
    "missing",
]


@pytest.mark.parametrize("seed", range(60))
def test_random_jobs_match_agentcompass(seed):
    import random

    rng = random.Random(seed)
    k = rng.choice([1, 2, 3, 4])
    trials = []
    for n in range(rng.randint(1, 7)):
        category = rng.choice(["easy", "hard", "misc", None, " hard "])
        for attempt in range(1, k + 1):
            v = rng.choice(VERDICTS)
            if v == "missing":
                continue
            if v == "running":
                trials.append(trial(f"t{n}", attempt=attempt, running=True, category=category))
            elif isinstance(v, str):
                reward = rng.choice([None, 0.0, 1.0]) if v == "AgentTimeoutError" else None
                trials.append(trial(f"t{n}", attempt=attempt, exception=v, reward=reward, category=category))
            else:
                reward = None if v is None else float(v) if isinstance(v, bool) else rng.random()
                trials.append(trial(f"t{n}", attempt=attempt, reward=reward, category=category))
    if not trials:
        return
    tree = rng.choice(
        [None, HIERARCHY_WEIGHTS, {"overall": {"aggregation": "unweighted", "children": {"easy": {}, "hard": {}}}}]
    )
    for strategy in ("avg", "pass"):
        for mode in ("micro_weighted", "category_mean"):
            check(trials, k=k, strategy=strategy, aggregation_mode=mode, category_hierarchy=tree)
    check(trials, k=k, primary="score", category_hierarchy=tree)
