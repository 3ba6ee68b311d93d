"""Tool decisions folded onto tool calls when they are read (GET /api/spans, the trial trace).

A decision (Claude Code `tool_decision`, Codex `codex.tool_decision`) is a log event of its own: it
is joined here, at read time, to the agent events with the same tool call id and the same job and
trial (with no trial identity: the same service). A tool span whose trial sent no such event takes
the decision its child span carries (Claude Code `claude_code.tool.blocked_on_user`). Only the ids on
hand are looked up, within a time window around their calls. A call without a decision keeps
`decision = None`: never a default accept.
"""

from clickhouse_connect.driver.client import Client

from harborlight.read.statements.agent_events import AgentEvent, Decision
from harborlight.read.statements.decision_sql import DECISIONS, SPAN_DECISIONS

# A decision is logged before its call runs (while the tool span is open): look a day back from the
# first call, for a user who took long to answer, and a little past the last call's end.
LOOKBACK_NS = 24 * 3600 * 1_000_000_000
LOOKAHEAD_NS = 3600 * 1_000_000_000

_Key = tuple[str, str | None, str | None, str | None]


def _key(call_id: str, job: str | None, trial: str | None, service: str) -> _Key:
    return (call_id, job, trial, None) if trial else (call_id, job, None, service)


def _call_id(event: AgentEvent) -> str | None:
    return event.tool.call_id if event.tool else None


def _tool_span(event: AgentEvent) -> bool:
    return event.kind == "tool" and event.source == "otel_traces"


def fold(events: list[AgentEvent], rows: list[tuple], span_rows: list[tuple] = ()) -> list[AgentEvent]:
    """`events` with each tool call's decision. `rows` are DECISIONS rows and `span_rows`
    SPAN_DECISIONS rows, in time order: the last decision on a call wins, and a logged decision wins
    over a child span's."""
    logged: dict[_Key, Decision] = {}
    for call_id, job, trial, service, decision, source in rows:
        logged[_key(call_id, job, trial, service)] = Decision(decision=decision, source=source)
    by_span = {
        (trace_id, span_id): Decision(decision=decision, source=source)
        for trace_id, span_id, decision, source in span_rows
    }

    def decision_of(e: AgentEvent) -> Decision | None:
        call_id = _call_id(e)
        found = logged.get(_key(call_id, e.job, e.trial, e.service)) if call_id else None
        return found or (by_span.get((e.trace_id, e.span_id)) if _tool_span(e) else None)

    return [e.model_copy(update={"decision": decision_of(e)}) if _call_id(e) or _tool_span(e) else e for e in events]


def with_decisions(client: Client, tenant: str, events: list[AgentEvent]) -> list[AgentEvent]:
    calls = [e for e in events if _call_id(e)]
    spans = [e for e in events if _tool_span(e)]
    if not calls and not spans:
        return events
    window = {
        "tenant": tenant,
        "since": min(e.start_unix_nano for e in calls + spans) - LOOKBACK_NS,
        "until": max(e.end_unix_nano or e.start_unix_nano for e in calls + spans) + LOOKAHEAD_NS,
    }

    def read(sql: str, **ids: list[str]) -> list[tuple]:
        return client.query(sql, parameters={**window, **ids}).result_rows

    rows = read(DECISIONS, ids=sorted({_call_id(e) for e in calls})) if calls else []
    span_rows = read(SPAN_DECISIONS, span_ids=sorted({e.span_id for e in spans})) if spans else []
    return fold(events, rows, span_rows)
