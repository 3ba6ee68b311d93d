"""A trial's wall clock and the four Harbor phases, from the harness's lifecycle spans."""

from __future__ import annotations

import math
from dataclasses import dataclass

from harborlight.read.derive.provenance import Valued, derived, measured, unavailable
from harborlight.read.derive.records import Interval, TrialFacts

PHASES = ("environment_setup", "agent_setup", "agent_execution", "verifier")


@dataclass(frozen=True, slots=True)
class TrialTimings:
    """Seconds. dur_other is dur_total minus the recorded phases."""

    dur_total: Valued[float]
    dur_env: Valued[float]
    dur_agent_setup: Valued[float]
    dur_agent: Valued[float]
    dur_verifier: Valued[float]
    dur_other: Valued[float]


def _span(interval: Interval | None, name: str) -> Valued[float]:
    if interval is None or interval.start is None:
        return unavailable(f"no harbor.{name} span")
    if interval.end is None:
        return unavailable(f"harbor.{name} still open")
    return measured(interval.end - interval.start)


def derive_timings(facts: TrialFacts) -> TrialTimings:
    if facts.is_running or facts.finished_at is None:
        total: Valued[float] = unavailable("trial still running" if facts.is_running else "no trial end")
    elif facts.started_at is None:
        total = unavailable("no trial start")
    else:
        total = measured(facts.finished_at - facts.started_at)
    phases = {name: _span(getattr(facts, name), name) for name in PHASES}
    return TrialTimings(
        dur_total=total,
        dur_env=phases["environment_setup"],
        dur_agent_setup=phases["agent_setup"],
        dur_agent=phases["agent_execution"],
        dur_verifier=phases["verifier"],
        dur_other=_other(facts, total, phases),
    )


def _other(facts: TrialFacts, total: Valued[float], phases: dict[str, Valued[float]]) -> Valued[float]:
    """dur_total minus the phases. A phase that never started counts as no time; a phase that
    started but has no end makes the remainder unknown (it would compound the gap silently)."""
    if total.value is None:
        return unavailable("dur_total unknown")
    open_phases = [
        n
        for n in PHASES
        if getattr(facts, n) is not None and getattr(facts, n).start is not None and phases[n].value is None
    ]
    if open_phases:
        return unavailable(f"phase without an end: {', '.join(open_phases)}")
    known = [phases[n].value for n in PHASES if phases[n].value is not None]
    missing = [n for n in PHASES if phases[n].value is None]
    if not known:
        return unavailable("no phase spans recorded")
    note = f"phases not recorded: {', '.join(missing)}" if missing else None
    return derived(total.value - math.fsum(v for v in known if v is not None), note)
