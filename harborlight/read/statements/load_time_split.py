"""A job's (or one trial's) call measures from the store, and a trial's span tree, as the typed records
the time split and the critical path take (harborlight/read/derive/time_split.py, critical_path.py)."""

from collections.abc import Mapping

from clickhouse_connect.driver.client import Client

from harborlight.read.derive.critical_path import SpanNode
from harborlight.read.derive.time_split import CallTotals
from harborlight.read.statements.time_split_sql import SPLITS
from harborlight.read.statements.trace_tree import TraceNode
from harborlight.read.statements.trial_rows_sql import LIFECYCLE_SPANS


def call_totals(
    client: Client, tenant: str, job: str, bounds: Mapping[str, tuple[int, int]], trial: str = ""
) -> dict[str, CallTotals]:
    """trial name -> its calls measured within its bounds (ns; time_split.clip_bounds); one trial when
    `trial` is given. A trial without calls has no entry."""
    params = {
        "tenant": tenant,
        "job": job,
        "trial": trial,
        "trials": list(bounds),
        "lo": [lo for lo, _ in bounds.values()],
        "hi": [hi for _, hi in bounds.values()],
    }
    return {
        name: CallTotals(
            model,
            busy,
            dict(by_model),
            timed,
            untimed,
            first if timed else None,
            last if timed else None,
            bool(inferred),
        )
        for name, model, busy, timed, untimed, first, last, inferred, by_model in client.query(
            SPLITS, parameters=params
        ).result_rows
    }


def _nodes(tops: list[TraceNode]) -> list[SpanNode]:
    """The SpanNode trees of `tops`, built children first (iterative: any depth)."""
    order: list[TraceNode] = []
    stack = list(tops)
    while stack:
        n = stack.pop()
        order.append(n)
        stack.extend(n.children)
    built: dict[int, SpanNode] = {}
    for n in reversed(order):  # every node after its children
        e = n.event
        name = (e.tool.name if e.tool and e.tool.name else None) or e.model or e.name
        end = None if e.end_unix_nano is None or e.timing == "unknown" else e.end_unix_nano
        built[id(n)] = SpanNode(n.kind, name, e.start_unix_nano, end, tuple(built.pop(id(c)) for c in n.children))
    return [built[id(n)] for n in tops]


def _is_lifecycle(n: TraceNode) -> bool:
    return n.event.source == "otel_traces" and n.event.name in LIFECYCLE_SPANS


def agent_roots(roots: list[TraceNode]) -> list[SpanNode]:
    """The agent's top spans of a trial's tree: the harness's lifecycle spans are looked through."""
    top: list[TraceNode] = []
    stack = list(reversed(roots))
    while stack:
        r = stack.pop()
        if _is_lifecycle(r):
            stack.extend(reversed(r.children))
        else:
            top.append(r)
    return _nodes(top)
