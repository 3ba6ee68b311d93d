"""Job rows: solve rates, the adjusted denominator, scores, totals and running jobs."""

from harborlight.read.derive.job_metrics import derive_job
from harborlight.read.derive.records import JobFacts, ScorePart, VerifierReport
from tests.unit.read.derive.builders import T0, trial

JOB = [
    trial("a", reward=1.0, n_input_tokens=100, cost_usd=0.5),
    trial("b", reward=0.0, n_input_tokens=200),
    trial("c", exception="ApiRateLimitError"),
    trial("d", exception="SandboxBuildFailedError"),
    trial("e", exception="KeyError"),  # unknown stays in the denominator
    trial("f", reward=1.0, exception="AgentTimeoutError"),
]


def test_raw_and_adjusted_solve_rates():
    m = derive_job(JOB)
    assert m.raw_solve_rate.value == 2 / 6
    assert m.n_infra.value == 2
    assert m.adjusted_solve_rate.value == 2 / 4
    assert m.counts.value["rate_limited"] == 1 and m.counts.value["unknown"] == 1
    assert sum(m.counts.value.values()) == 6


def test_no_verdict_means_no_solve_rate():
    m = derive_job([trial("a"), trial("b", exception="KeyError")])
    assert m.raw_solve_rate.value is None and m.adjusted_solve_rate.value is None
    assert m.mean_score.value is None


def test_all_infrastructure_has_no_rates_at_all():
    m = derive_job([trial("a", exception="ApiError"), trial("b", reward=1.0, exception="ApiRateLimitError")])
    assert m.raw_solve_rate.value is None and m.adjusted_solve_rate.value is None
    assert m.n_infra.value == 2


def test_graded_job_mean_score_weighted_by_parts_and_by_group():
    m = derive_job(
        [trial("a", parts=(ScorePart(1.0, "x"), ScorePart(0.0, "y"), ScorePart(1.0, "x"))), trial("b", reward=0.0)]
    )
    assert m.mean_score.value == (2 / 3 * 3 + 0.0) / 4
    assert m.score_by_group.value == {"x": 1.0, "y": 0.0} and m.parts_by.value == "part group"


def test_totals_cover_only_trials_that_recorded_them():
    m = derive_job(JOB)
    assert m.total_input_tokens.value == 300 and "2 of 6" in m.total_input_tokens.note
    assert m.total_cost_usd.value == 0.5
    assert m.total_output_tokens.value is None


def test_running_job_is_partial_and_has_no_duration():
    m = derive_job(JOB + [trial("g", running=True)], JobFacts("job-a", started_at=T0, n_planned=10))
    assert m.is_running.value is True and m.n_running.value == 1
    assert m.duration_min.value is None
    assert m.raw_solve_rate.value == 2 / 6  # over finished trials
    assert m.n_planned.value == 10 and m.n_retries.value is None


def test_duration_and_identity():
    m = derive_job(
        [
            trial("a", reward=1.0, agent_name="claude-code", agent_version="2.0"),
            trial("b", reward=0.0, attempt=3, agent_name="claude-code"),
        ]
    )
    assert m.duration_min.value == (T0 + 360.0 - (T0 + 100.0)) / 60.0
    assert m.agent_label.value == "claude-code" and m.agent_version.value == "2.0"
    assert m.is_control.value is False and m.dataset.value == "ds@1"
    assert derive_job([trial("a", reward=1.0, agent_name="oracle")]).is_control.value is True


def test_n_regressions_counts_trials_that_broke_passing_tests():
    broke = trial("t1", reward=0.0, report=VerifierReport(p2p_pass=40, p2p_fail=2))
    kept = trial("t2", reward=1.0, report=VerifierReport(p2p_pass=42, p2p_fail=0))
    unreported = trial("t3", reward=1.0)
    job = derive_job([broke, kept, unreported])
    assert (job.n_regressions.value, job.n_regressions.note) == (1, "2 of 3 finished trials have a PASS_TO_PASS report")
    none = derive_job([unreported]).n_regressions
    assert (none.value, none.provenance.value, none.note) == (None, "unavailable", "no trial has a PASS_TO_PASS report")


def test_a_nop_control_marks_the_tasks_whose_passing_tests_fail_anyway():
    nop = [
        trial("django-1", reward=0.0, agent_name="nop", report=VerifierReport(p2p_pass=10, p2p_fail=0)),
        trial("django-2", reward=0.0, agent_name="nop", report=VerifierReport(p2p_pass=9, p2p_fail=1)),
        trial("django-3", reward=0.0, agent_name="nop"),
    ]
    assert derive_job(nop).task_broken.value == {"django-1": False, "django-2": True}  # django-3: no report, no claim
    agent = derive_job([trial("django-2", reward=0.0, agent_name="codex", report=VerifierReport(p2p_fail=1))])
    assert (agent.task_broken.value, agent.task_broken.note) == (None, "not a nop control run")
    unreported = derive_job([trial("django-3", reward=0.0, agent_name="nop")]).task_broken
    assert unreported.note == "no nop trial has a PASS_TO_PASS report"


def test_a_reward_with_several_keys_breaks_the_score_down_by_key():
    """Harbor's verifier_result.rewards is a dict: a verifier that scores parts writes one key per part."""
    m = derive_job(
        [
            trial("a", rewards={"reward": 1.0, "style": 0.5}),
            trial("b", rewards={"reward": 0.0, "style": 1.0, "docs": 1.0}),
            trial("c", reward=1.0),
        ]
    )
    assert m.parts_by.value == "reward key"
    assert m.score_by_group.value == {"docs": 1.0, "reward": 0.5, "style": 0.75}
    assert m.score_by_group.note == "2 of 3 finished trials recorded a reward with several keys"


def test_single_rewards_have_no_breakdown():
    m = derive_job([trial("a", reward=1.0), trial("b", reward=0.0)])
    assert m.parts_by.value is None and m.score_by_group.value is None
    assert "no reward with several keys" in m.parts_by.note
