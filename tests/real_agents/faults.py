"""The faults harborlight still has on real agents' telemetry, each marking exactly the aspects it breaks
(tests/real_agents/checks.py names them) in the replayed fixtures and the live runs.

A row is removed by whoever fixes its fault: the mark is strict, so a fixed fault fails as XPASS until
its row goes.
"""

from collections.abc import Callable
from dataclasses import dataclass

import pytest


@dataclass(frozen=True)
class Fault:
    reason: str
    agent: str
    aspects: tuple[str, ...]
    when: Callable = lambda case: True  # noqa: E731  (of the case: episode, signal mix)


# Every fault found so far is fixed; a new one gets a row: Fault(reason, agent, aspects[, when]).
FAULTS: tuple[Fault, ...] = ()


def mark_known_fault(request: pytest.FixtureRequest, case, aspect: str) -> None:
    reasons = [f.reason for f in FAULTS
               if f.agent == case.recording.agent and aspect in f.aspects and f.when(case)]
    if reasons:
        request.applymarker(pytest.mark.xfail(strict=True, reason="; ".join(reasons)))
