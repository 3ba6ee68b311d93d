"""The 95% interval of each AgentCompass series, beside metrics.json (which stays AgentCompass's to the
byte): the interval of the mean over the series' evaluated tasks, each task's reduced value (native,
avg@k or pass@k) one observation, by the rule of harborlight/read/derive/intervals.py."""

from __future__ import annotations

from collections.abc import Sequence

from harborlight.read.derive.agentcompass import evaluated_values, reduce_task, series_plan
from harborlight.read.derive.agentcompass_attempts import CONTRACTS, plan_k, primary_for, task_attempts
from harborlight.read.derive.intervals import ConfidenceInterval, mean_interval
from harborlight.read.derive.provenance import Valued, unavailable
from harborlight.read.derive.records import TrialFacts


def series_intervals(
    trials: Sequence[TrialFacts],
    *,
    k: int | None = None,
    strategy: str = "avg",
    primary: str | None = None,
    aggregation_mode: str = "micro_weighted",
) -> dict[str, Valued[ConfidenceInterval]]:
    """series_id -> interval, for the series agentcompass_report plans with the same options."""
    chosen = primary or primary_for(trials)
    tasks = task_attempts(trials, chosen)
    contract = CONTRACTS[chosen]
    main = next(m for m in contract if m.primary)
    plans = series_plan(contract, plan_k(tasks, k), strategy)
    if aggregation_mode != "micro_weighted":
        return {
            p.series_id: unavailable(f"an interval is computed for micro_weighted aggregation, not {aggregation_mode}")
            for p in plans
        }
    return {
        p.series_id: mean_interval(evaluated_values([reduce_task(t, p, main, strategy) for t in tasks])) for p in plans
    }
