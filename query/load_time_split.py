"""A job's (or one trial's) call clocks from the store, and a trial's span tree, as the typed records
the time split and the critical path take (query/derive/time_split.py, critical_path.py)."""

from clickhouse_connect.driver.client import Client

from query.derive.critical_path import SpanNode
from query.derive.time_split import TimedCall
from query.trace_tree import TraceNode
from query.trial_rows_sql import LIFECYCLE_SPANS
from query.time_split_sql import TIMED_CALLS, TWINS

def timed_calls(client: Client, tenant: str, job: str, trial: str = "") -> dict[str, list[TimedCall]]:
    """trial name -> its model and tool calls in start order (one trial when `trial` is given)."""
    params = {"tenant": tenant, "job": job, "trial": trial}
    twins = bool(client.query(TWINS, parameters=params).result_rows)
    out: dict[str, list[TimedCall]] = {}
    for name, kind, model, ts, end_ts, timing in client.query(TIMED_CALLS[twins], parameters=params).result_rows:
        end = None if end_ts is None or timing == "unknown" else end_ts
        out.setdefault(name, []).append(TimedCall(kind, model, ts, end, inferred=timing == "inferred"))
    return out


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
