"""The tour's Harbor jobs (examples/harbor-jobs, made by a real `harbor run`: examples/harbor-tour/make_jobs.py)
load with Harbor's own code as `harbor view` reads them, and hold what the tour shows: verdicts both ways,
a retry, an infrastructure error, two attempts per task, and a second job on the same tasks."""

import json
from collections import Counter

from harbor.models.job.result import JobResult
from harbor.models.trajectories import Trajectory
from harbor.models.trial.result import TrialResult

from tests.importers.exported import view
from tests.support.paths import REPO

JOBS = REPO / "examples" / "harbor-jobs"


def _trials(job: str) -> list[TrialResult]:
    return [TrialResult.model_validate_json(p.read_text()) for p in sorted((JOBS / job).glob("*/result.json"))]


def test_harbor_loads_the_tour_jobs():
    for job in ("tour-hasty", "tour-careful"):
        scanner = view(JOBS, job)
        assert len(scanner.list_trials(job)) == 20
        for path in (JOBS / job).glob("*/agent/trajectory.json"):
            Trajectory.model_validate(json.loads(path.read_text()))


def test_the_tour_jobs_hold_what_the_tour_shows():
    hasty, careful = _trials("tour-hasty"), _trials("tour-careful")
    rewards = Counter(t.verifier_result.rewards["reward"] for t in hasty if t.exception_info is None)
    assert rewards[1.0] and rewards[0.0]  # verdicts both ways
    assert [t.exception_info.exception_type for t in hasty if t.exception_info] == ["ApiRateLimitError"]
    assert JobResult.model_validate_json((JOBS / "tour-hasty" / "result.json").read_text()).stats.n_retries >= 1
    for trials in (hasty, careful):
        assert set(Counter(t.task_name for t in trials).values()) == {2}  # two attempts per task
    assert {t.task_name for t in hasty} == {t.task_name for t in careful}
    assert sum(p.stat().st_size for p in JOBS.rglob("*") if p.is_file()) < 600_000
