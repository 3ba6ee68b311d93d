"""pass@k and pass^k over repeated attempts, as the field guide defines them.

pass@k = 1 - C(n-c, k) / C(n, k)   (at least one of k sampled attempts passes)
pass^k = C(c, k) / C(n, k)         (all k sampled attempts pass)
n is a unit's attempt count and c its resolved count; a unit is one task of one dataset. Values are
averaged over eligible units, for every k from 2 to the smallest attempt count among them.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Never

from harborlight.read.derive.intervals import ConfidenceInterval, mean_intervals
from harborlight.read.derive.outcomes import EXCEPTION_CLASSES, VERDICT_OUTCOMES, Outcome, classify
from harborlight.read.derive.provenance import Valued, derived, unavailable
from harborlight.read.derive.records import TrialFacts

Unit = tuple[str | None, str | None]  # (dataset, task)
FAIL_OUTCOMES = (VERDICT_OUTCOMES - {Outcome.RESOLVED}) | {Outcome.AGENT_ERROR}


@dataclass(frozen=True, slots=True)
class UnitAttempts:
    unit: Unit
    n: int  # attempts with a pass/fail verdict
    c: int  # of those, resolved


@dataclass(frozen=True, slots=True)
class PassAtK:
    pass_at_k: Valued[dict[int, float]]  # k -> mean pass@k
    pass_hat_k: Valued[dict[int, float]]  # k -> mean pass^k
    n_units: Valued[int]  # eligible units averaged over
    n_excluded_units: Valued[int]  # units left out (an invalidating exception or missing verdict)
    min_attempts: Valued[int]  # the smallest attempt count among eligible units
    pass_at_k_ci: Valued[dict[int, Valued[ConfidenceInterval]]]  # k -> interval of the mean, over units
    pass_hat_k_ci: Valued[dict[int, Valued[ConfidenceInterval]]]


def unit_of(trial: TrialFacts) -> Unit:
    return trial.source, trial.task


def unit_order(unit: Unit) -> tuple[str, str]:
    """Units in a fixed order, so a seeded resample of them is reproducible."""
    return str(unit[0]), str(unit[1])


def pass_at(n: int, c: int, k: int) -> float:
    """1 - C(n-c,k)/C(n,k), exact (rational) then rounded once."""
    return float(1 - Fraction(math.comb(n - c, k), math.comb(n, k)))


def pass_hat(n: int, c: int, k: int) -> float:
    """C(c,k)/C(n,k), exact (rational) then rounded once."""
    return float(Fraction(math.comb(c, k), math.comb(n, k)))


def _verdict(trial: TrialFacts) -> bool | None:
    """True/False for a pass/fail verdict the unit can use; None makes the unit ineligible.
    An agent error keeps the unit eligible only when the verifier still gave a verdict."""
    outcome = classify(trial).value
    if outcome is Outcome.RESOLVED:
        return True
    cls = EXCEPTION_CLASSES.get(trial.exception_type) if trial.exception_type else None
    has_verdict = bool(trial.rewards) or (trial.report is not None and trial.report.resolved is not None)
    if outcome in FAIL_OUTCOMES and has_verdict and cls in (None, Outcome.AGENT_ERROR):
        return False
    return None


def eligible_units(trials: Sequence[TrialFacts]) -> tuple[list[UnitAttempts], int]:
    """(eligible units, number excluded). Running attempts are not evidence yet and are skipped;
    a unit with any finished attempt lacking a usable verdict is excluded whole."""
    by_unit: dict[Unit, list[bool | None]] = {}
    for t in trials:
        if t.is_running:
            continue
        by_unit.setdefault(unit_of(t), []).append(_verdict(t))
    units = [
        UnitAttempts(u, len(v), sum(bool(x) for x in v))
        for u, v in sorted(by_unit.items(), key=lambda kv: unit_order(kv[0]))
        if v and all(x is not None for x in v)
    ]
    return units, len(by_unit) - len(units)


def derive_pass_at_k(trials: Sequence[TrialFacts]) -> PassAtK:
    units, excluded = eligible_units(trials)
    n_units, n_excl = derived(len(units)), derived(excluded)
    if not units:
        none: Valued[Never] = unavailable("no eligible unit")
        return PassAtK(none, none, n_units, n_excl, none, none, none)
    n_min = min(u.n for u in units)
    if n_min < 2:
        none = unavailable(f"smallest attempt count is {n_min}; no series below two attempts")
        return PassAtK(none, none, n_units, n_excl, derived(n_min), none, none)
    ks = range(2, n_min + 1)
    at = {k: [pass_at(u.n, u.c, k) for u in units] for k in ks}
    hat = {k: [pass_hat(u.n, u.c, k) for u in units] for k in ks}
    note = f"{len(units)} units, k = 2..{n_min}"
    return PassAtK(
        derived(_means(at), note),
        derived(_means(hat), note),
        n_units,
        n_excl,
        derived(n_min),
        *_intervals(at, hat, note),
    )


def _intervals(
    at: dict[int, list[float]], hat: dict[int, list[float]], note: str
) -> tuple[Valued[dict[int, Valued[ConfidenceInterval]]], Valued[dict[int, Valued[ConfidenceInterval]]]]:
    """Every k of both series from one resampling of the units."""
    both = mean_intervals({**{("at", k): v for k, v in at.items()}, **{("hat", k): v for k, v in hat.items()}})
    return (derived({k: both[("at", k)] for k in at}, note), derived({k: both[("hat", k)] for k in hat}, note))


def _means(values: dict[int, list[float]]) -> dict[int, float]:
    return {k: math.fsum(v / len(vs) for v in vs) for k, vs in values.items()}
