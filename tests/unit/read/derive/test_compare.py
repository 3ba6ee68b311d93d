"""Comparing jobs on their matched tasks."""

import pytest

from harborlight.read.derive.compare import compare
from harborlight.read.derive.outcomes import Outcome
from tests.unit.read.derive.builders import trial

A = [
    trial("x", reward=1.0, job="A"),
    trial("y", reward=0.0, job="A"),
    trial("z", reward=1.0, job="A"),
    trial("x", reward=0.0, job="A", source="other@1"),
]
B = [
    trial("x", reward=0.0, job="B"),
    trial("y", reward=0.0, job="B", attempt=1),
    trial("y", reward=1.0, job="B", attempt=2),
    trial("w", reward=1.0, job="B"),
]


def test_matched_tasks_are_the_intersection_of_dataset_and_task():
    c = compare({"A": A, "B": B})
    assert c.matched_tasks.value == 2
    assert [(r.dataset, r.task) for r in c.rows] == [("ds@1", "x"), ("ds@1", "y")]


def test_flips_use_the_last_indexed_attempt():
    rows = {r.task: r for r in compare({"A": A, "B": B}).rows}
    assert rows["x"].flip == "lost" and rows["y"].flip == "gained"
    assert rows["y"].outcomes == {"A": Outcome.FAILED_VERIFICATION, "B": Outcome.RESOLVED}


def test_rates_cover_every_matched_attempt_and_differences_are_against_the_baseline():
    c = compare({"A": A, "B": B})
    assert c.metrics["A"].raw_solve_rate.value == 0.5
    assert c.metrics["B"].raw_solve_rate.value == pytest.approx(1 / 3)
    assert c.differences["B"]["raw_solve_rate"].value == pytest.approx(1 / 3 - 0.5)
    assert c.metrics["A"].duration_min.value is None


def test_compare_needs_two_jobs():
    with pytest.raises(ValueError):
        compare({"A": A})
