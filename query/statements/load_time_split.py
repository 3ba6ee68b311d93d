"""A job's (or one trial's) call measures from the store, and a trial's span tree, as the typed records
the time split and the critical path take (query/derive/time_split.py, critical_path.py)."""

from collections.abc import Mapping

from clickhouse_connect.driver.client import Client

from query.derive.critical_path import SpanNode
from query.derive.time_split import CallTotals
from query.statements.time_split_sql import FORM, SPLITS
from query.statements.trace_tree import TraceNode
from query.statements.trial_rows_sql import LIFECYCLE_SPANS
from storage import agent_twins


def call_totals(client: Client, tenant: str, job: str, bounds: Mapping[str, tuple[int, int]], trial: str = ""
                ) -> dict[str, CallTotals]:
    """trial name -> its calls measured within its bounds (ns; time_split.clip_bounds); one trial when
    `trial` is given. A trial without calls has no entry."""
    params = {"tenant": tenant, "job": job, "trial": trial, "trials": list(bounds),
              "lo": [lo for lo, _ in bounds.values()], "hi": [hi for _, hi in bounds.values()]}
    form, names = agent_twins.bind(client.query(FORM, parameters=params).result_rows[0])
    return {name: CallTotals(model, busy, dict(by_model), timed, untimed, first if timed else None,
                             last if timed else None, bool(inferred))
            for name, model, busy, timed, untimed, first, last, inferred, by_model
            in client.query(SPLITS[form], parameters={**params, **names}).result_rows}


def _node(n: TraceNode) -> SpanNode:
    e = n.event
    name = (e.tool.name if e.tool and e.tool.name else None) or e.model or e.name
    end = None if e.end_unix_nano is None or e.timing == "unknown" else e.end_unix_nano
    return SpanNode(n.kind, name, e.start_unix_nano, end, tuple(_node(c) for c in n.children))


def _is_lifecycle(n: TraceNode) -> bool:
    return n.event.source == "otel_traces" and n.event.name in LIFECYCLE_SPANS


def agent_roots(roots: list[TraceNode]) -> list[SpanNode]:
    """The agent's top spans of a trial's tree: the harness's lifecycle spans are looked through."""
    top: list[SpanNode] = []
    for r in roots:
        top.extend(agent_roots(r.children) if _is_lifecycle(r) else [_node(r)])
    return top
