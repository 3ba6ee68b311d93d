"""An AgentCompass 1.0.1-compatible metric report (the `metrics.json` document) from attempts.

Reproduces AgentCompass's KReducer and aggregate_metric_report: the series plan per k and
strategy, per-task reduction (native / avg / pass) with its coverage, early-stop and FATAL
invalidation rules, the five counts, categories, category_mean and category hierarchies, and the
evaluation_failed value/reference_value swap. Means are fsum of divided terms, as AgentCompass does.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from harborlight.read.derive.agentcompass_attempts import (
    CONTRACTS,
    Kind,
    MetricDecl,
    TaskAttempts,
    plan_k,
    primary_for,
    task_attempts,
)
from harborlight.read.derive.agentcompass_hierarchy import Breakdown, Counts, HierarchyNode, evaluate, parse_hierarchy
from harborlight.read.derive.records import TrialFacts

UNCATEGORIZED = "__uncategorized__"
_NOT_COMPLETED = frozenset({"cancelled", "interrupted", "skipped"})


@dataclass(frozen=True, slots=True)
class SeriesPlan:
    metric: MetricDecl
    reducer: str  # native | avg | pass
    k: int

    @property
    def series_id(self) -> str:
        return f"{self.metric.id}.{self.reducer}@{self.k}"


@dataclass(frozen=True, slots=True)
class TaskReduction:
    value: float | None
    state: str  # evaluated | error | unavailable | invalidated
    has_error: bool


def series_plan(contract: Sequence[MetricDecl], k: int, strategy: str) -> list[SeriesPlan]:
    primary = next(m for m in contract if m.primary)
    if strategy == "pass" and primary.kind is not Kind.BINARY:
        raise ValueError(f"metric '{primary.id}' is scalar and does not support the pass strategy")
    if strategy not in ("avg", "pass") or k < 1:
        raise ValueError(f"unsupported attempt plan k={k} strategy={strategy!r}")
    if k == 1:
        return [SeriesPlan(m, "native", 1) for m in contract]
    if strategy == "pass":
        return [SeriesPlan(primary, "pass", k)]
    reducers = {Kind.BINARY: ("avg", "pass"), Kind.SCALAR: ("avg",)}
    return [SeriesPlan(m, r, k) for m in contract for r in reducers[m.kind]]


def _reduce_values(reducer: str, values: list[bool | float], k: int) -> float | None:
    if reducer == "native":
        return float(values[0]) if len(values) == 1 else None
    if reducer == "avg":
        return math.fsum(float(v) / k for v in values) if len(values) == k else None
    if any(v is True for v in values):
        return 1.0
    return 0.0 if len(values) == k else None


def reduce_task(task: TaskAttempts, plan: SeriesPlan, primary: MetricDecl, strategy: str) -> TaskReduction:
    k = plan.k
    values, observed, errors = [], 0, 0
    for index in range(1, k + 1):
        attempt = task.attempts.get(index)
        if attempt is None:
            continue
        observed += 1
        errors += any(i.severity in ("fatal", "error") for i in attempt.issues)
        if plan.metric.id in attempt.metrics:
            values.append(attempt.metrics[plan.metric.id])
    invalidated = any(i.severity == "fatal" for a in task.attempts.values() for i in a.issues)
    missing = k - observed
    if task.attempts and set(task.attempts) == set(range(1, max(task.attempts) + 1)) and not invalidated:
        last = task.attempts[max(task.attempts)]
        if (
            strategy == "pass"
            and last.status not in _NOT_COMPLETED
            and primary.kind is Kind.BINARY
            and last.metrics.get(primary.id) is True
        ):
            missing = 0
    value = _reduce_values(plan.reducer, values, k)
    if invalidated:
        state, value = "invalidated", None
    elif value is not None:
        state = "evaluated"
    elif missing or errors:
        state = "error"
    else:
        state = "unavailable"
    has_error = state in ("error", "invalidated") or errors > 0 or missing > 0
    return TaskReduction(value, state, has_error)


def _mean(values: Sequence[float]) -> float | None:
    return math.fsum(v / len(values) for v in values) if values else None


def _counts(items: Sequence[TaskReduction]) -> Counts:
    return Counts(
        total=len(items),
        evaluated=sum(i.state == "evaluated" for i in items),
        error=sum(i.has_error for i in items),
        unavailable=sum(i.state in ("error", "unavailable") for i in items),
        invalidated=sum(i.state == "invalidated" for i in items),
    )


def evaluated_values(items: Sequence[TaskReduction]) -> list[float]:
    """The values of the tasks a series averages (its evaluated tasks)."""
    return [i.value for i in items if i.state == "evaluated" and i.value is not None]


def category_of(raw: object) -> str:
    text = str(raw).strip() if raw is not None else ""
    return text or UNCATEGORIZED


def _series(
    plan: SeriesPlan, reductions: list[TaskReduction], cats: list[str], aggregation: str, root: HierarchyNode | None
) -> dict[str, Any]:
    grouped: dict[str, list[TaskReduction]] = {}
    for cat, red in zip(cats, reductions, strict=True):
        grouped.setdefault(cat, []).append(red)
    categories = {
        c: Breakdown(_mean(evaluated_values(g)), _counts(g), float(_counts(g).evaluated))
        for c, g in sorted(grouped.items())
    }
    hierarchy: dict[str, Breakdown] = {}
    if aggregation == "micro_weighted":
        value = _mean(evaluated_values(reductions))
    elif aggregation == "category_mean":
        value = _mean([b.value for b in categories.values() if b.value is not None])
    else:
        assert root is not None
        overall, hierarchy = evaluate(root, categories)
        value = overall.value
    m = plan.metric
    return {
        "aggregation": aggregation,
        "categories": categories,
        "counts": _counts(reductions),
        "display": {"description": None, "label": m.label, "precision": None, "unit": None},
        "extra": {},
        "hierarchy": hierarchy,
        "k": plan.k,
        "kind": m.kind.value,
        "metric_id": m.id,
        "reducer": plan.reducer,
        "reference_value": None,
        "role": "headline" if m.primary else "auxiliary",
        "series_id": plan.series_id,
        "value": value,
    }


def build_report(
    tasks: Sequence[TaskAttempts],
    contract: Sequence[MetricDecl],
    *,
    k: int,
    strategy: str = "avg",
    aggregation_mode: str = "micro_weighted",
    category_hierarchy: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """The metrics.json document (as a dict with Breakdown/Counts records; see to_json)."""
    if aggregation_mode not in ("micro_weighted", "category_mean"):
        raise ValueError("aggregation_mode must be 'micro_weighted' or 'category_mean'")
    root = parse_hierarchy(category_hierarchy) if category_hierarchy else None
    aggregation = "category_hierarchy" if root is not None else aggregation_mode
    primary = next(m for m in contract if m.primary)
    cats = [category_of(t.category) for t in tasks]
    series = [
        _series(plan, [reduce_task(t, plan, primary, strategy) for t in tasks], cats, aggregation, root)
        for plan in series_plan(contract, k, strategy)
    ]
    failed = any(s["counts"].invalidated for s in series)
    if failed:
        series = [_as_reference(s) for s in series]
    return {
        "aggregation": aggregation,
        "evaluation_failed": failed,
        "extra": {},
        "k": k,
        "series": series,
        "strategy": strategy,
    }


def _as_reference(series: dict[str, Any]) -> dict[str, Any]:
    def swap(b: Breakdown) -> Breakdown:
        return Breakdown(None, b.counts, b.aggregation_weight, reference_value=b.value)

    return {
        **series,
        "value": None,
        "reference_value": series["value"],
        "categories": {c: swap(b) for c, b in series["categories"].items()},
        "hierarchy": {p: swap(b) for p, b in series["hierarchy"].items()},
    }


def to_json(report: Mapping[str, Any]) -> dict[str, Any]:
    """Plain JSON types throughout (the records become dicts)."""

    def plain(value: Any) -> Any:
        if isinstance(value, (Breakdown, Counts)):
            return value.to_json()
        if isinstance(value, Mapping):
            return {str(k): plain(v) for k, v in value.items()}
        if isinstance(value, (list, tuple)):
            return [plain(v) for v in value]
        return value

    plain_report: dict[str, Any] = plain(report)
    return plain_report


def metrics_json_text(report: Mapping[str, Any]) -> str:
    """metrics.json byte for byte as AgentCompass writes it (sorted keys, indent 2, newline)."""
    return json.dumps(to_json(report), indent=2, ensure_ascii=False, sort_keys=True) + "\n"


def agentcompass_report(
    trials: Sequence[TrialFacts],
    *,
    k: int | None = None,
    strategy: str = "avg",
    primary: str | None = None,
    aggregation_mode: str = "micro_weighted",
    category_hierarchy: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """A job's trials straight to the report: contract chosen by `primary` (auto when None),
    k = the planned attempts (or the highest attempt index seen)."""
    chosen = primary or primary_for(trials)
    tasks = task_attempts(trials, chosen)
    return build_report(
        tasks,
        CONTRACTS[chosen],
        k=plan_k(tasks, k),
        strategy=strategy,
        aggregation_mode=aggregation_mode,
        category_hierarchy=category_hierarchy,
    )
