"""AgentCompass's category hierarchies: the tree, its validation and its bottom-up values."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

_FIELDS = frozenset({"aggregation", "children", "weight"})
_AGGREGATIONS = frozenset({"leaf", "unweighted", "weighted", "weighted_by_count"})


@dataclass(frozen=True, slots=True)
class Counts:
    total: int
    evaluated: int
    error: int
    unavailable: int
    invalidated: int = 0

    def __add__(self, other: Counts) -> Counts:
        return Counts(
            self.total + other.total,
            self.evaluated + other.evaluated,
            self.error + other.error,
            self.unavailable + other.unavailable,
            self.invalidated + other.invalidated,
        )

    def to_json(self) -> dict[str, int]:
        return {
            "error": self.error,
            "evaluated": self.evaluated,
            "invalidated": self.invalidated,
            "total": self.total,
            "unavailable": self.unavailable,
        }


@dataclass(frozen=True, slots=True)
class Breakdown:
    value: float | None
    counts: Counts
    aggregation_weight: float | None
    reference_value: float | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "aggregation_weight": self.aggregation_weight,
            "counts": self.counts.to_json(),
            "reference_value": self.reference_value,
            "value": self.value,
        }


@dataclass(frozen=True, slots=True)
class HierarchyNode:
    name: str
    path: str
    aggregation: str
    weight: float | None
    children: tuple[HierarchyNode, ...]


def _segment(name: str) -> str:
    return name.replace("~", "~0").replace("/", "~1")


def _weight(value: Any, path: str) -> float | None:
    if value is None:
        return None
    if type(value) not in (int, float) or not math.isfinite(float(value)) or value < 0:
        raise ValueError(f"hierarchy node '{path}' weight must be a finite non-negative number")
    return float(value)


def _node(name: str, payload: Any, parent: str | None) -> HierarchyNode:
    if type(name) is not str or not name.strip() or name != name.strip():
        raise ValueError("hierarchy node names must be non-empty strings without surrounding whitespace")
    path = _segment(name) if parent is None else f"{parent}/{_segment(name)}"
    if not isinstance(payload, Mapping) or set(payload) - _FIELDS:
        raise ValueError(f"hierarchy node '{path}' must be a mapping of aggregation/children/weight")
    aggregation = payload.get("aggregation", "leaf")
    if aggregation not in _AGGREGATIONS:
        raise ValueError(f"hierarchy node '{path}' has an unknown aggregation {aggregation!r}")
    weight = _weight(payload.get("weight"), path)
    raw = payload.get("children")
    if aggregation == "leaf":
        if raw not in (None, {}):
            raise ValueError(f"leaf hierarchy node '{path}' cannot have children")
        return HierarchyNode(name, path, aggregation, weight, ())
    if not isinstance(raw, Mapping) or not raw:
        raise ValueError(f"hierarchy node '{path}' requires a non-empty children mapping")
    children = tuple(_node(n, p, path) for n, p in raw.items())
    if aggregation == "weighted" and any(c.weight is None for c in children):
        raise ValueError(f"weighted hierarchy node '{path}' requires a weight for every child")
    return HierarchyNode(name, path, aggregation, weight, children)


def parse_hierarchy(value: Mapping[str, Any]) -> HierarchyNode:
    if set(value) != {"overall"}:
        raise ValueError("category_hierarchy must contain exactly one 'overall' root")
    root = _node("overall", value["overall"], None)
    leaves: set[str] = set()

    def check(node: HierarchyNode) -> None:
        if node.aggregation == "leaf":
            if node.name in leaves:
                raise ValueError(f"hierarchy category leaf '{node.name}' is repeated")
            leaves.add(node.name)
        for child in node.children:
            check(child)

    check(root)
    return root


def _combine(node: HierarchyNode, valid: list[tuple[HierarchyNode, Breakdown]]) -> float | None:
    if not valid:
        return None
    values = [b.value for _, b in valid if b.value is not None]
    if node.aggregation == "unweighted":
        return math.fsum(v / len(values) for v in values)
    if node.aggregation == "weighted":
        weights = [c.weight or 0.0 for c, _ in valid]
        scale = max(weights)
        if scale <= 0:
            raise ValueError(f"weighted hierarchy node '{node.path}' has no positive weight among valid children")
        scaled = [w / scale for w in weights]
        denominator = math.fsum(scaled)
        return math.fsum(v * (w / denominator) for v, w in zip(values, scaled, strict=True))
    weights = [
        b.aggregation_weight if b.aggregation_weight is not None else float(b.counts.evaluated) for _, b in valid
    ]
    denominator = math.fsum(weights)
    if denominator <= 0:
        return 0.0
    return math.fsum(v * (w / denominator) for v, w in zip(values, weights, strict=True))


def evaluate(root: HierarchyNode, categories: Mapping[str, Breakdown]) -> tuple[Breakdown, dict[str, Breakdown]]:
    """(overall, {path: breakdown}). Parents sum their children's counts and combine the values of
    children that have one (renormalising over them); a leaf with no tasks is empty."""
    out: dict[str, Breakdown] = {}
    empty = Breakdown(None, Counts(0, 0, 0, 0), 0.0)

    def reduce(node: HierarchyNode) -> Breakdown:
        if node.aggregation == "leaf":
            result = categories.get(node.name, empty)
        else:
            kids = [(c, reduce(c)) for c in node.children]
            counts = Counts(0, 0, 0, 0)
            for _, b in kids:
                counts = counts + b.counts
            weight = math.fsum(
                b.aggregation_weight if b.aggregation_weight is not None else float(b.counts.evaluated) for _, b in kids
            )
            result = Breakdown(_combine(node, [(c, b) for c, b in kids if b.value is not None]), counts, weight)
        out[node.path] = result
        return result

    overall = reduce(root)
    return overall, out
