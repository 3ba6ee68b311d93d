"""The keeper's tree pass: after a resolution wrote a set of trials' rows (harborlight/summaries/resolve.py), the
kinds only their traces' trees tell (a run's top agent a session, an agent a tool or another agent invoked a
sub-agent: harborlight/read/statements/trace_tree.py `build_tree`, the trace route's own function) replace the
rules' kinds in the stored rows, at the same version. A span bracketing one of its name keeps its kind (only the
trace shows it a group): a model call inside a model call of its name is still a call, its tokens counted.
A trace is built from the resolved trials' rows of it; the records of a trace all take its trial
(harborlight/agent/identity.py), so that is the whole trace but for records that name another trial of their own.
A trace sent again under another trial is a tree of its own (`build_tree`): one pass over many replays of one
recording costs what each replay costs.
"""

from collections import defaultdict

from clickhouse_connect.driver.client import Client

from harborlight.read.statements.agent_events import AgentEvent, from_row
from harborlight.read.statements.trace_tree import build_tree, node_key, walk
from harborlight.read.statements.tree_kinds_sql import CHANGEABLE, EVENTS, REKIND


def tree_changes(events: list[AgentEvent]) -> dict[tuple[str, str, str, str], str]:
    """The records whose tree kind is not their stored one (by `node_key`: job, trial, trace, EventId) -> that
    kind."""
    by_trace: dict[str, list[AgentEvent]] = defaultdict(list)
    for event in events:
        by_trace[event.trace_id].append(event)
    changes: dict[tuple[str, str, str, str], str] = {}
    for trace in by_trace.values():
        for node in walk(build_tree(trace, brackets=False).roots):
            if node.kind != node.event.kind:
                changes[node_key(node.event)] = node.kind
    return changes


def write_tree_kinds(client: Client, bound: dict, version: int) -> int:
    """Writes the tree kinds of the trials `bound` names (tenant, trials, nameless) at `version`, the
    resolution's; returns how many records changed kind."""
    scope = {"tenant": bound["tenant"], "trials": bound["trials"], "nameless": bound["nameless"], "version": version}
    traces = [r[0] for r in client.query(CHANGEABLE, parameters=scope).result_rows]
    if not traces:
        return 0
    rows = client.query(EVENTS, parameters={**scope, "traces": traces}).result_rows
    changes = tree_changes([from_row(r) for r in rows])
    if changes:
        keys = sorted(changes)
        events = sorted({key[3] for key in keys})
        kinds = [changes[k] for k in keys]
        client.command(REKIND, parameters={**scope, "keys": keys, "kinds": kinds, "events": events})
    return len(changes)
