"""Agent events as the API shows them: the agent_events columns read, and the typed record built
from one row (a tool call's decision is added by harborlight/read/statements/tool_decisions.py). Shared by GET /api/spans
and GET /api/trials/{trial}/trace."""

from pydantic import BaseModel

# The columns read, in the order `from_row` expects them.
COLUMNS = """
    EventId, TraceId, SpanId, ParentSpanId, SourceTable, Kind, KindRule, Resolve, Name, ServiceName,
    toUnixTimestamp64Nano(Timestamp) AS ts, toUnixTimestamp64Nano(EndTimestamp) AS end_ts, DurationNs, TimingQuality,
    JobName, TrialName, Attempt, TaskName, AgentName, Model, Provider,
    InputTokens, CachedTokens, CacheWriteTokens, OutputTokens, ReasoningTokens, CostUsd,
    HttpStatus, ErrorType, Success, ToolName, ToolCategory, ToolCallId, TargetPaths, Provenance, RequestId,
    AgentVersion, SideCall"""


class Tokens(BaseModel):
    """Input includes cache reads and writes; cached and cache_write are parts of input; output
    includes reasoning. null: not reported."""

    input: int | None
    cached: int | None
    cache_write: int | None
    output: int | None
    reasoning: int | None


class Tool(BaseModel):
    name: str | None
    category: str | None
    call_id: str | None
    target_paths: list[str]


class Decision(BaseModel):
    """Whether a tool call was allowed, and by what, as the producer logged it (Claude Code
    tool_decision: accept/reject; Codex codex.tool_decision: approved, denied, ...): values as sent."""

    decision: str
    source: str | None  # config, hook:..., rule:..., user, ...
    how: str = "measured"


class AgentEvent(BaseModel):
    event_id: str
    trace_id: str
    span_id: str
    parent_span_id: str
    source: str
    kind: str
    kind_rule: str
    name: str
    service: str
    start_unix_nano: int
    end_unix_nano: int | None
    duration_ns: int | None
    timing: str
    job: str | None
    trial: str | None
    attempt: int | None
    task: str | None
    agent: str | None
    agent_version: str | None
    model: str | None
    provider: str | None
    request_id: str | None  # a model call's provider request id (to find it in the provider's logs)
    side_call: str | None  # the purpose of a model call that serves the session, not its turns (a title, ...)
    tokens: Tokens
    cost_usd: float | None
    http_status: int | None
    error_type: str | None
    success: bool | None
    tool: Tool | None
    provenance: dict[str, str]
    decision: Decision | None = (
        None  # a tool call's decision, folded on when read (harborlight/read/statements/tool_decisions.py)
    )
    resolve: str = ""  # how the kind may change when its trace is read (see harborlight/read/statements/trace_tree.py)


def from_row(r: tuple) -> AgentEvent:
    tool = None
    if r[30] is not None or r[29] is not None:
        tool = Tool(name=r[30], category=r[31], call_id=r[32], target_paths=list(r[33]))
    return AgentEvent(
        event_id=r[0],
        trace_id=r[1],
        span_id=r[2],
        parent_span_id=r[3],
        source=r[4],
        kind=r[5],
        kind_rule=r[6],
        resolve=r[7],
        name=r[8],
        service=r[9],
        start_unix_nano=r[10],
        end_unix_nano=r[11],
        duration_ns=r[12],
        timing=r[13],
        job=r[14],
        trial=r[15],
        attempt=r[16],
        task=r[17],
        agent=r[18],
        model=r[19],
        provider=r[20],
        request_id=r[35],
        agent_version=r[36],
        side_call=r[37],
        tokens=Tokens(input=r[21], cached=r[22], cache_write=r[23], output=r[24], reasoning=r[25]),
        cost_usd=r[26],
        http_status=r[27],
        error_type=r[28],
        success=r[29],
        tool=tool,
        provenance={k: v for k, v in r[34].items() if v},
    )
