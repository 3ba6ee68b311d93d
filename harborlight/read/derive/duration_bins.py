"""The field guide's span-duration charts: span durations on log-spaced bins, by count and by summed span
time, split by kind. A share of span time, never of the run (spans nest, so their sum is not wall time).

The edges are the one definition of the bins: the store counts each span into the first edge above its
duration (harborlight/read/statements/duration_bins_sql.py), and this module shapes those counts for the API.
"""

from collections.abc import Iterable
from dataclasses import dataclass

from harborlight.read.derive.provenance import Valued, derived, unavailable

PER_DECADE = 4  # bins per factor of ten: 1 ms, 1.8 ms, 3.2 ms, 5.6 ms, 10 ms, ...
SMALLEST_NS = 1_000_000  # 1 ms: the first bin holds everything shorter
DECADES = 7  # up to 10,000 s (2.8 h); the last bin holds everything longer


def edges_ns() -> list[int]:
    """Upper edges of the bins but the last, which is open: [1 ms, 1.78 ms, ..., 10,000 s]."""
    return [round(SMALLEST_NS * 10 ** (i / PER_DECADE)) for i in range(DECADES * PER_DECADE + 1)]


@dataclass(frozen=True, slots=True)
class BinCount:
    kind: str
    bin: int  # 0: below edges_ns()[0]; len(edges_ns()): at or above the last edge
    count: int
    total_ns: int


@dataclass(frozen=True, slots=True)
class DurationChart:
    edges_s: Valued[list[float]]  # the bins' upper edges but the open last one
    by_kind: Valued[dict[str, dict[str, list[float]]]]  # kind -> {"count": [per bin], "time_s": [per bin]}
    time_share_by_kind: Valued[dict[str, float]]  # kind -> its share of the charted spans' summed time
    n_spans: Valued[int]
    n_without_clock: Valued[int]  # spans with no known end: counted apart, never as zero-length


def duration_chart(counts: Iterable[BinCount], n_without_clock: int) -> DurationChart:
    edges = edges_ns()
    by_kind: dict[str, dict[str, list[float]]] = {}
    for c in counts:
        row = by_kind.setdefault(c.kind, {"count": [0] * (len(edges) + 1), "time_s": [0.0] * (len(edges) + 1)})
        row["count"][c.bin] += c.count
        row["time_s"][c.bin] += c.total_ns / 1e9
    n_spans = int(sum(sum(r["count"]) for r in by_kind.values()))  # counts: whole numbers
    total_s = sum(sum(r["time_s"]) for r in by_kind.values())
    no_clock = derived(n_without_clock, "spans with no known end: not charted")
    if not n_spans:
        why = "no span with a start and an end" + (
            f" ({n_without_clock} without a known end)" if n_without_clock else ""
        )
        return DurationChart(
            derived([e / 1e9 for e in edges]), unavailable(why), unavailable(why), derived(0), no_clock
        )
    shares = {k: sum(r["time_s"]) / total_s for k, r in sorted(by_kind.items())} if total_s else None
    return DurationChart(
        derived(
            [e / 1e9 for e in edges],
            f"{PER_DECADE} bins per decade; the first bin holds shorter spans, the last longer ones",
        ),
        derived(dict(sorted(by_kind.items()))),
        derived(shares, "of summed span time, not of the run")
        if shares
        else unavailable("every charted span lasted 0 ns"),
        derived(n_spans),
        no_clock,
    )
