"""The agent convention table: which producer signal is which kind, which attribute is which fact.

Read top to bottom: the first kind rule that holds wins, and for each fact the first alias present
wins. harborlight/agent/compile.py compiles these tables into the agent_events materialized views
(harborlight/store/sql/agent_events_*_mv.sql). To teach harborlight a new producer, add rows here and run
`python -m harborlight.agent.compile`. Sources: ../shared/reference/otel-agent-conventions.md, §10-§13.
"""

from dataclasses import replace

from harborlight.agent.rule_types import (
    Alias,
    Category,
    Derived,
    Fact,
    FlatMessages,
    KindRule,
    When,
    attr,
    ends,
    event,
    has,
    not_service,
    prefix,
    scope,
    service,
    span,
    suffix,
)

KINDS = ("llm_request", "reasoning", "output", "tool", "subagent", "session", "user_message", "compaction", "group")

# How a log record's event name is found: EventName, else attribute event.name, else a dotted body.
# Producers that send the name without their prefix get it back (Claude Code: event.name=api_request).
EVENT_PREFIXES = (("com.anthropic.claude_code", "claude_code."),)
# EventName values that name no event: the Rust tracing bridge (opentelemetry-appender-tracing, which
# Codex uses) fills EventName with the code location `event <file>:<line>` of an event given no name;
# Codex puts the real name (codex.sse_event, ...) in the attribute event.name.
CODE_LOCATION_EVENT_NAME = r"^event [^ ]+:[0-9]+$"

_OI = "openinference.span.kind"
# The paths of the model APIs (OpenAI Chat Completions and Responses, Anthropic Messages, Gemini), as their URL ends.
MODEL_API_PATHS = (
    "/chat/completions",
    "/completions",
    "/responses",
    "/messages",
    ":generateContent",
    ":streamGenerateContent",
)
_CLAUDE_METADATA_EVENTS = (
    "api_retries_exhausted",
    "api_refusal",
    "api_request_body",
    "api_response_body",
    "tool_decision",
    "skill_activated",
    "system_prompt",
    "tool",
    "hook_execution_start",
    "hook_execution_complete",
)

# kind None marks metadata: a log record that is no agent event (it stays in otel_logs).
# resolve="agent": session if root, else the run's own agent, a group (a subagent when a trace read shows a tool
# or a non-root agent above it: harborlight/read/statements/trace_tree.py);
# resolve="root_session": session if root, else group.
KIND_RULES: tuple[KindRule, ...] = (
    # 0. The harness lifecycle (ARCHITECTURE.md, Identity).
    KindRule("harbor", "session", span("harbor.trial")),
    KindRule(
        "harbor",
        "group",
        span("harbor.environment_setup", "harbor.agent_setup", "harbor.agent_execution", "harbor.verifier"),
    ),
    # 1. Vendor-exact span and event names.
    KindRule("claude_code", "group", span("claude_code.interaction")),
    KindRule("claude_code", "llm_request", span("claude_code.llm_request")),
    KindRule("claude_code", "tool", span("claude_code.tool")),
    KindRule("claude_code", "subagent", span("claude_code.subagent.spawn")),
    KindRule("claude_code", "compaction", span("claude_code.compaction")),
    KindRule(
        "claude_code",
        "group",
        span(
            "claude_code.tool.blocked_on_user",
            "claude_code.tool.execution",
            "claude_code.hook",
            "claude_code.mcp.rpc",
            "claude_code.bash.subprocess",
        ),
    ),
    KindRule("claude_code", "user_message", event("claude_code.user_prompt")),
    KindRule("claude_code", "llm_request", event("claude_code.api_request", "claude_code.api_error")),
    KindRule("claude_code", "output", event("claude_code.assistant_response")),
    KindRule("claude_code", "tool", event("claude_code.tool_result")),
    KindRule("claude_code", "compaction", event("claude_code.compaction")),
    KindRule("claude_code", "subagent", event("claude_code.subagent_completed")),
    KindRule("claude_code", None, event(*(f"claude_code.{n}" for n in _CLAUDE_METADATA_EVENTS))),
    KindRule("codex", "session", event("codex.conversation_starts")),
    KindRule("codex", "user_message", event("codex.user_prompt")),
    # Codex 0.171 logs response.completed twice per call, once without the usage: that one is no call.
    KindRule(
        "codex",
        "llm_request",
        event("codex.sse_event") & attr("event.kind", "response.completed") & has("input_token_count"),
    ),
    KindRule(
        "codex",
        "llm_request",
        event("codex.api_request", "codex.websocket_request") & When(min_value=("http.response.status_code", 400)),
    ),
    KindRule("codex", "tool", event("codex.tool_result")),
    KindRule("codex", "output", event("codex.agent_response")),  # its final reply (otel.log_agent_responses)
    KindRule("codex", None, event("codex.tool_decision", "codex.sandbox_outcome")),  # annotate the tool_result
    KindRule("codex", "session", span("session_loop") & service("codex")),
    KindRule("codex", "reasoning", span("reasoning") & service("codex")),
    KindRule("codex", "output", span("message_from_assistant") & service("codex")),
    KindRule("codex", "compaction", span("compaction", "context_compaction") & service("codex")),
    KindRule("codex", "llm_request", span("completed") & service("codex")),
    # A call's span is its dispatch (named after the tool, with call_id); Codex before 0.171 put the tool
    # on handle_tool_call. Its guardian scores the call under the same call_id: a step, not a call.
    KindRule("codex", "tool", attr("codex.tool.phase", "dispatch") & service("codex")),
    KindRule("codex", "tool", span("handle_tool_call") & has("tool_name") & service("codex")),
    KindRule("codex", "group", span("guardian_scoring_observation") & service("codex")),
    KindRule(
        "codex",
        "group",
        span("run_turn", "submission_dispatch", "run_sampling_request", "stream_request", "handle_responses")
        & service("codex"),
    ),
    # Its other root spans (auth, fs.read_file, initialize, turn/start, ...) are steps, not sessions.
    KindRule("codex", "group", When(source="span", root=True) & service("codex")),
    KindRule("gemini_cli", "user_message", event("gemini_cli.user_prompt")),
    KindRule("gemini_cli", "llm_request", event("gemini_cli.api_response", "gemini_cli.api_error")),
    KindRule("gemini_cli", "tool", event("gemini_cli.tool_call")),
    KindRule("gemini_cli", "compaction", event("gemini_cli.chat_compression")),
    KindRule("gemini_cli", "subagent", event("gemini_cli.agent.finish")),
    KindRule("gemini_cli", None, event("gen_ai.client.inference.operation.details") & scope("gemini-cli")),
    KindRule("genai", "llm_request", event("gen_ai.client.inference.operation.details") & When(correlated=False)),
    # GenAI 1.30 message events: each model call logs its whole input (gen_ai.system/user/assistant/tool.message,
    # the history replayed on every call: only a user message no earlier call told is a user turn,
    # REPLAYED_MESSAGES) and its output choices (gen_ai.choice: its text the answer, its tool calls content of
    # the call, read into the trajectory's step).
    KindRule("genai", "user_message", event("gen_ai.user.message")),
    KindRule("genai", None, event("gen_ai.system.message", "gen_ai.assistant.message", "gen_ai.tool.message")),
    KindRule("genai", "output", event("gen_ai.choice") & has("@body:message.content")),
    KindRule("genai", "group", event("gen_ai.choice")),
    KindRule("cline", "session", event("task.created")),
    KindRule("cline", "user_message", event("task.conversation_turn") & attr("source", "user")),
    KindRule("cline", "llm_request", event("task.conversation_turn") & attr("source", "assistant")),
    KindRule("cline", "tool", event("task.tool_used")),
    KindRule("cline", "subagent", event("task.subagent_completed")),
    # Qwen Code 0.24: spans qwen-code.interaction > qwen-code.llm_request, qwen-code.tool (read generically), and
    # log events with what the spans lack: the prompt, the reply text, the tool arguments (twin of the tool span).
    KindRule("qwen_code", "user_message", event("qwen-code.user_prompt")),
    KindRule("qwen_code", "output", event("qwen-code.api_response") & has("response_text")),
    KindRule("qwen_code", "tool", event("qwen-code.tool_call")),
    KindRule("opencode", "session", span("opencode.run")),
    KindRule("opencode", "group", span("opencode.interaction", "opencode.permission.check")),
    KindRule("opencode", "llm_request", span("opencode.llm")),
    KindRule("opencode", "tool", prefix("opencode.tool.")),
    # opencode's default export (no experimental.openTelemetry): its Effect spans, of which only these two tell
    # the agent's conduct. LLM.run carries no attribute (no model, tokens or messages: null, not guessed);
    # Tool.execute its tool's name and call id, no arguments.
    KindRule("opencode", "llm_request", span("LLM.run") & service("opencode")),
    KindRule("opencode", "tool", span("Tool.execute") & service("opencode")),
    KindRule("goose", "group", span("reply", "reply_stream") & service("goose")),
    KindRule("goose", "llm_request", span("complete", "stream_response_from_provider") & service("goose")),
    KindRule("goose", "tool", span("dispatch_tool_call") & service("goose")),
    # 2. Framework kind attributes (LangSmith before gen_ai.operation.name: it maps prompt to chat).
    KindRule("openinference", "group", attr(_OI, "AGENT") & prefix("turn-")),
    KindRule("openinference", "compaction", attr(_OI, "CHAIN") & span("context-management")),
    KindRule("openinference", "compaction", attr(_OI, "CHAIN") & has("context_management.action")),
    KindRule("openinference", "llm_request", attr(_OI, "LLM")),
    KindRule("openinference", "tool", attr(_OI, "TOOL", "RETRIEVER", "EMBEDDING", "RERANKER")),
    KindRule("openinference", "session", attr(_OI, "AGENT"), resolve="agent"),
    # A chain at the top of its trace is the run (LangGraph's graph): one session.
    KindRule("openinference", "session", attr(_OI, "CHAIN") & When(source="span", root=True)),
    KindRule("openinference", "group", has(_OI)),
    KindRule("laminar", "llm_request", attr("lmnr.span.type", "LLM")),
    KindRule("laminar", "tool", attr("lmnr.span.type", "TOOL")),
    KindRule("laminar", "session", attr("lmnr.span.type", "EVALUATION")),
    KindRule("laminar", "group", has("lmnr.span.type")),
    KindRule("openllmetry", "session", attr("traceloop.span.kind", "workflow"), resolve="root_session"),
    KindRule("openllmetry", "session", attr("traceloop.span.kind", "agent"), resolve="agent"),
    KindRule("openllmetry", "tool", attr("traceloop.span.kind", "tool")),
    KindRule("openllmetry", "group", attr("traceloop.span.kind", "task")),
    KindRule("langsmith", "llm_request", attr("langsmith.span.kind", "llm")),
    KindRule("langsmith", "tool", attr("langsmith.span.kind", "tool", "retriever", "embedding")),
    KindRule("langsmith", "group", has("langsmith.span.kind")),
    # 3. gen_ai.operation.name (plus the non-standard values Gemini CLI and the AI SDK use).
    KindRule(
        "genai", "llm_request", attr("gen_ai.operation.name", "chat", "text_completion", "generate_content", "llm_call")
    ),
    KindRule(
        "genai",
        "tool",
        attr(
            "gen_ai.operation.name",
            "execute_tool",
            "tool_call",
            "embeddings",
            "retrieval",
            "search_memory",
            "create_memory",
            "update_memory",
            "upsert_memory",
            "delete_memory",
        ),
    ),
    KindRule("genai", "subagent", attr("gen_ai.operation.name", "agent_call")),
    KindRule("genai", "compaction", attr("gen_ai.operation.name", "compact_events")),
    KindRule("genai", "session", attr("gen_ai.operation.name", "invoke_agent", "create_agent"), resolve="agent"),
    KindRule("genai", "session", attr("gen_ai.operation.name", "invoke_workflow"), resolve="root_session"),
    KindRule("genai", "group", attr("gen_ai.operation.name", "plan", "agent_step", "schedule_tool_calls")),
    KindRule("genai", "user_message", attr("gen_ai.operation.name", "user_prompt")),
    KindRule("openllmetry", "llm_request", attr("llm.request.type", "chat", "completion")),
    # 4. Span-name patterns.
    KindRule("genai", "llm_request", prefix("chat ", "text_completion ", "generate_content ")),
    KindRule("genai", "tool", prefix("execute_tool ", "tools/call")),
    KindRule("genai", "session", prefix("invoke_agent"), resolve="agent"),
    KindRule("genai", "compaction", prefix("compact_events")),
    KindRule(
        "vercel_ai",
        "llm_request",
        span(
            *(
                f"ai.{op}.{do}"
                for op, do in (
                    ("generateText", "doGenerate"),
                    ("streamText", "doStream"),
                    ("generateObject", "doGenerate"),
                    ("streamObject", "doStream"),
                )
            )
        ),
    ),
    KindRule("vercel_ai", "tool", span("ai.toolCall")),
    KindRule(
        "vercel_ai",
        "session",
        span("ai.generateText", "ai.streamText", "ai.generateObject", "ai.streamObject"),
        resolve="root_session",
    ),
    KindRule("copilot", "group", span("execute_hook")),
    KindRule("strands", "group", span("execute_event_loop_cycle")),
    KindRule("strands", "session", span("invoke_swarm", "invoke_graph"), resolve="root_session"),
    KindRule("pydantic_ai", "tool", span("running tool")),
    KindRule("pydantic_ai", "session", span("agent run"), resolve="agent"),
    KindRule("openllmetry", "llm_request", suffix(".chat", ".completion")),
    # opencode's other root spans (sql.execute, http.server POST, Cli.run, ...: ~90 traces a run) are steps of the
    # run, not sessions (its AI SDK roots are, above).
    KindRule("opencode", "group", When(source="span", root=True) & service("opencode")),
    # HTTP semantic conventions: a client span (url.full) of a request to a model API answered with an error status is
    # a failed attempt of a model call, a 429 rate-limited (Qwen Code tells the 429 it retried only so: an
    # @opentelemetry/instrumentation-undici `POST` span under its qwen-code.llm_request span, which then succeeded).
    # An answered request's span is a step of its call (a group, below).
    KindRule(
        "http",
        "llm_request",
        When(source="span", min_value=("http.response.status_code", 400))
        & has("url.full")
        & ends("url.path", *MODEL_API_PATHS),
    ),
    # 5. Structural fallbacks.
    KindRule(
        "fallback",
        "llm_request",
        has(
            "gen_ai.usage.input_tokens",
            "gen_ai.usage.output_tokens",
            "llm.token_count.prompt",
            "ai.usage.inputTokens",
            "gen_ai.usage.prompt_tokens",
        ),
    ),
    KindRule(
        "fallback",
        "tool",
        has("gen_ai.tool.call.id", "tool_use_id", "call_id", "tool.id")
        & has("gen_ai.tool.name", "tool.name", "tool_name"),
    ),
    KindRule("fallback", "session", When(source="span", root=True)),
    KindRule("fallback", "group", When(source="span")),
    KindRule("fallback", None, When(source="log")),
)

_TOOL_ONLY = ("tool", "subagent")
# Claude Code's model calls that serve the session rather than its turns, by their query_source (titles,
# summaries, classifiers, suggestions, a tool's own model call): they count in tokens and cost, and are
# neither the trial's model nor steps of its trajectory. Its turns are `sdk` / `repl_main_thread`, its
# sub-agents' `agent:*`, a compaction `compact`.
CLAUDE_SIDE_QUERIES = (
    "generate_session_title",
    "teleport_generate_title",
    "rename_generate_name",
    "agent_namer",
    "agent_summary",
    "away_summary",
    "tool_use_summary_generation",
    "prompt_suggestion",
    "side_question",
    "session_search",
    "context_tip_classifier",
    "context_tip_reception",
    "agent_classifier",
    "auto_mode",
    "auto_mode_critique",
    "permission_explainer",
    "bash_extract_prefix",
    "model_validation",
    "mcp_datetime_parse",
    "extract_memories",
    "fleet_agent_suggestions",
    "feedback",
    "insights",
    "speculation",
    "auto_dream",
    "web_fetch_apply",
    "web_search_tool",
    "hook_prompt",
    "hook_agent",
    "agent_creation",
)

# The agent a service or agent name stands for where the two differ: (name prefix, the agent as Harbor names
# it). Codex names its service after the client it runs as (codex_exec for `codex exec`, codex_cli_rs, ...);
# Qwen Code calls itself qwen-code, Harbor qwen-coder.
SERVICE_AGENTS = (("codex", "codex"), ("qwen-code", "qwen-coder"))

# Where an agent names its session (Claude Code's session.id, Codex's conversation.id, the ATIF trajectory's
# session_id as gen_ai.conversation.id); a record with no trial name of its own is named after it. Codex's
# thread/start and session_loop spans name the same id as their thread (`thread_id`).
_SESSION = (
    Alias("session.id"),
    Alias("resource:session.id"),
    Alias("gen_ai.conversation.id"),
    Alias("conversation.id"),
    Alias("lmnr.association.properties.session_id"),
    Alias("thread_id", when=service("codex")),
)

# Scopes whose records retell an agent's run from its ATIF trajectory after the fact (harborlight's Harbor
# importer, Harbor's own atif2otel converter): where the agent's live telemetry tells a kind of a trial,
# that telemetry counts and the retelling's records of the kind do not (harborlight/agent/twins.py).
TRAJECTORY_SCOPES = ("harborlight.atif", "harbor-atif2otel")

# A span whose call failed in the provider's words for a refused rate, with no status code told (the Vercel AI
# SDK's APICallError carries OpenAI's "Rate limit reached for requests" as the status message), is a 429
# (inferred). RE2, as both compilations match it.
RATE_LIMIT_MESSAGE = r"(?i)\brate[ _-]?limit|\btoo many requests\b"

# Token facts mean the same for every producer (GenAI semconv): input INCLUDES cache reads and
# writes, cached and cache_write are subsets of input, output INCLUDES reasoning. `plus` adds the
# fields a producer leaves out (Claude Code events exclude the cache; Gemini CLI excludes thoughts).
FACTS: tuple[Fact, ...] = (
    Fact(
        "job",
        "JobName",
        "string",
        (
            Alias("resource:harbor.job.name"),
            Alias("harbor.job.name"),
            Alias("resource:harbor.job.id"),
            Alias("harbor.job.id"),
        ),
    ),
    Fact(
        "trial",
        "TrialName",
        "string",
        (
            Alias("resource:harbor.trial.name"),
            Alias("harbor.trial.name"),
            Alias("lmnr.association.properties.metadata.harbor.trial_name"),
            Alias("harbor.trial_name"),
            # Harbor's ATIF converter: session.id on a non-root span is a sub-agent's own trajectory, not the trial's
            # (such a span has no identity of its own: harborlight/agent/identity.py gives it its trace's).
            Alias("@trace_id", how="inferred", when=scope("harbor-atif2otel") & When(root=False)),
            *(replace(a, how="inferred") for a in _SESSION),
            # No session: the process (service.instance.id), so one run of an app with no harness is one trial
            # (its model calls are a trace each); its trace's stronger name still wins (identity.py).
            Alias("@process", how="inferred"),
            Alias("@trace_id", how="inferred"),
        ),
    ),
    # The agent's own session (conversation) id, wherever the record's trial is named: a trial that names it
    # (an imported trajectory's session_id) takes the records named after it (harborlight/agent/identity.py).
    Fact("session", "SessionId", "string", _SESSION),
    Fact("attempt", "Attempt", "int", (Alias("resource:harbor.attempt"), Alias("harbor.attempt"))),
    Fact(
        "task",
        "TaskName",
        "string",
        (Alias("resource:harbor.task.name"), Alias("harbor.task.name"), Alias("harbor.task_name")),
    ),
    # An agent's own telemetry names it when no harbor.agent.* attribute does: its service (Claude Code's
    # claude-code 2.1.197, Codex's codex_exec 0.171.0). Gemini CLI's service.version is Node's (v20.20.2).
    Fact(
        "agent",
        "AgentName",
        "string",
        (
            Alias("resource:harbor.agent.name"),
            Alias("harbor.agent.name"),
            Alias("gen_ai.agent.name", named=SERVICE_AGENTS),
            Alias("agent.name"),
            # Codex's agent_name is a place in its agent tree (/root), no name.
            Alias("agent_name", when=not_service("codex")),
            Alias("resource:service.name", how="inferred", named=SERVICE_AGENTS),
        ),
    ),
    Fact(
        "agent_version",
        "AgentVersion",
        "string",
        (
            Alias("resource:harbor.agent.version"),
            Alias("harbor.agent.version"),
            Alias("gen_ai.agent.version"),
            Alias("agent.version"),
            Alias("resource:service.version", how="inferred", when=not_service("gemini-cli")),
        ),
    ),
    Fact(
        "model",
        "Model",
        "string",
        (
            Alias("gen_ai.response.model"),
            Alias("gen_ai.request.model"),
            Alias("llm.model_name"),
            Alias("llm.response.model_name"),
            Alias("llm.request.model_name"),
            Alias("ai.response.model"),
            Alias("ai.model.id"),
            Alias("model"),
            Alias("slug"),
        ),
    ),
    Fact(
        "provider",
        "Provider",
        "string",
        (
            Alias("gen_ai.provider.name"),
            Alias("gen_ai.system"),
            Alias("llm.provider"),
            Alias("llm.system"),
            Alias("ai.model.provider"),
            Alias("provider_name"),
            Alias("provider"),
        ),
    ),
    Fact(
        "input_tokens",
        "InputTokens",
        "int",
        (
            Alias("gen_ai.usage.input_tokens"),
            Alias("llm.token_count.prompt"),
            Alias("ai.usage.inputTokens"),
            Alias("ai.usage.promptTokens"),
            Alias("gen_ai.usage.prompt_tokens"),
            Alias("input_token_count"),
            Alias("input_tokens", plus=("cache_read_tokens", "cache_creation_tokens"), how="derived"),
            Alias("tokensIn", plus=("cacheReadTokens", "cacheWriteTokens"), how="derived"),
        ),
    ),
    Fact(
        "cached_tokens",
        "CachedTokens",
        "int",
        (
            Alias("gen_ai.usage.cache_read.input_tokens"),
            Alias("gen_ai.usage.cache_read_input_tokens"),
            Alias("llm.token_count.prompt_details.cache_read"),
            Alias("ai.usage.inputTokenDetails.cacheReadTokens"),
            Alias("ai.usage.cachedInputTokens"),
            Alias("cache_read_tokens"),
            Alias("cached_token_count"),
            Alias("cached_content_token_count"),
            Alias("cacheReadTokens"),
        ),
    ),
    Fact(
        "cache_write_tokens",
        "CacheWriteTokens",
        "int",
        (
            Alias("gen_ai.usage.cache_write.input_tokens"),
            Alias("gen_ai.usage.cache_creation.input_tokens"),
            Alias("gen_ai.usage.cache_creation_input_tokens"),
            Alias("gen_ai.usage.cache_write_input_tokens"),
            Alias("llm.token_count.prompt_details.cache_write"),
            Alias("ai.usage.inputTokenDetails.cacheWriteTokens"),
            Alias("cache_creation_tokens"),
            Alias("cache_write_token_count"),
            Alias("cacheWriteTokens"),
        ),
    ),
    Fact(
        "output_tokens",
        "OutputTokens",
        "int",
        (
            Alias("gen_ai.usage.output_tokens"),
            Alias("llm.token_count.completion"),
            Alias("ai.usage.outputTokens"),
            Alias("ai.usage.completionTokens"),
            Alias("gen_ai.usage.completion_tokens"),
            Alias("output_token_count", plus=("thoughts_token_count",), how="derived"),
            Alias("output_tokens"),
            Alias("tokensOut"),
        ),
    ),
    Fact(
        "reasoning_tokens",
        "ReasoningTokens",
        "int",
        (
            Alias("gen_ai.usage.reasoning.output_tokens"),
            Alias("llm.token_count.completion_details.reasoning"),
            Alias("ai.usage.reasoningTokens"),
            Alias("gen_ai.usage.reasoning_tokens"),
            Alias("gen_ai.usage.details.reasoning_tokens"),  # pydantic-ai: each provider usage detail under details.
            Alias("llm.usage.reasoning_tokens"),
            Alias("codex.usage.reasoning_output_tokens"),
            Alias("reasoning_token_count"),
            Alias("thoughts_token_count"),
        ),
    ),
    Fact(
        "cost_usd",
        "CostUsd",
        "float",
        (
            Alias("llm.cost.total"),
            Alias("cost_usd"),
            Alias("gen_ai.usage.cost"),
            Alias("operation.cost"),
            Alias("opencode.llm.cost.total"),
            Alias("harbor.agent.cost_usd"),
            Alias("totalCost"),
            Alias("cost_usd_micros", scale=1e-6, how="derived"),
        ),
    ),
    Fact(
        "http_status",
        "HttpStatus",
        "status",
        (
            Alias("http.response.status_code"),
            Alias("http.status_code"),
            Alias("status_code"),
            Alias("error.type", how="derived"),
            Alias("@status_message", how="derived"),
            Alias("@rate_limit_status", how="inferred"),
        ),
    ),
    Fact(
        "error_type",
        "ErrorType",
        "string",
        (Alias("error.type"), Alias("error_type"), Alias("error_class"), Alias("exception.type")),
    ),
    # A command's exit code, where the agent tells it (not stored: the evidence of `success`). Gemini CLI's
    # tool_call event: metadata {"exitCode": 1, "isError": true}; Codex's tool_result: its output text; opencode's
    # ai.toolCall span: its result's metadata.exit.
    Fact(
        "exit_code",
        "",
        "int",
        (
            Alias("metadata", json="exitCode", when=service("gemini-cli")),
            # (a line of the header Codex's exec_command output begins with, before its `Output:`)
            Alias("output", pattern=r"(?m)^Process exited with code (-?[0-9]+)$", when=service("codex")),
            # opencode's bash: its result (the AI SDK's ai.toolCall.result), {"metadata": {"exit": 1, ...}, ...}
            Alias("ai.toolCall.result", json="metadata.exit", when=service("opencode")),
        ),
        only_kinds=_TOOL_ONLY,
    ),
    # The exit code first: Codex's tool_result and Gemini CLI's tool_call say success: true of a command
    # that exited 1 (the tool ran; the command failed).
    Fact(
        "success",
        "Success",
        "bool",
        (
            Alias("@exit_status", how="derived"),
            Alias("success"),
            Alias("gen_ai.tool.status"),
            Alias("@span_status"),
            Alias("@http_error", how="derived"),
            Alias("@span_ended", how="inferred"),
        ),
    ),
    Fact(
        "tool_name",
        "ToolName",
        "string",
        (
            Alias("tool_name"),
            Alias("gen_ai.tool.name"),
            Alias("tool.name"),
            Alias("function_name"),
            Alias("ai.toolCall.name"),
            Alias("tool"),
            Alias("traceloop.entity.name", when=attr("traceloop.span.kind", "tool")),
            Alias("@name_after:execute_tool ", how="derived"),
            Alias("@name", how="derived", when=attr("lmnr.span.type", "TOOL")),
        ),
        only_kinds=_TOOL_ONLY,
    ),
    Fact(
        "tool_call_id",
        "ToolCallId",
        "string",
        (
            Alias("gen_ai.tool.call.id"),
            Alias("gen_ai.tool.call_id"),
            Alias("tool_use_id"),
            Alias("call_id"),
            Alias("tool.id"),
            Alias("tool_call.id"),
            Alias("tool.call_id"),
            Alias("ai.toolCall.id"),
        ),
        only_kinds=_TOOL_ONLY,
    ),
    # The provider's id of one model request: a Claude Code span and its api_request event both carry it,
    # so the two tellings of one call pair exactly (harborlight/agent/twins.py).
    # Its text (Claude Code's assistant_response) names it too: text goes to its call by this id, not by time.
    Fact("request_id", "RequestId", "string", (Alias("request_id"),), only_kinds=("llm_request", "output")),
    # A side call's purpose (NULL for a call of the agent's own turns); the span of one gets it from its twin.
    Fact(
        "side_call",
        "SideCall",
        "string",
        (Alias("query_source", when=attr("query_source", *CLAUDE_SIDE_QUERIES)),),
        only_kinds=("llm_request", "output"),
    ),
    Fact(
        "arguments",
        "",
        "string",
        (
            Alias("gen_ai.tool.call.arguments"),
            Alias("tool_input"),
            Alias("arguments"),
            Alias("function_args"),
            Alias("ai.toolCall.args"),
            Alias("tool_arguments"),
            Alias("lmnr.span.input"),
            Alias("input.value"),
            Alias("traceloop.entity.input"),
            Alias("tool_parameters"),
            Alias("@tool_message_event"),
        ),
        only_kinds=_TOOL_ONLY,
    ),
)

# Span events whose attributes are read as their span's own (the span's win): GenAI's latest conventions may put a
# call's gen_ai.input.messages / gen_ai.output.messages there (strands: one event each).
SPAN_EVENTS_AS_ATTRIBUTES = ("gen_ai.client.inference.operation.details",)
# GenAI 1.30 message events sent as span events of a model call (strands' default conventions): the call's input
# messages in order (`content`), then its gen_ai.choice (`message`); a content's text is the string itself, or the
# `text` of its parts when it is a JSON list (strands: [{"text": ...}, {"toolUse": ...}]). The user's turn is the
# last input message when it is the user's; the output, the choice's text. Value keys the compiler reads them by:
MESSAGE_EVENTS = ("gen_ai.system.message", "gen_ai.user.message", "gen_ai.assistant.message", "gen_ai.tool.message")
USER_EVENT_TURN, CHOICE_EVENT_TEXT = "@user_event_turn", "@choice_event_text"
# A tool span's gen_ai.tool.message event: its `content` the arguments the tool received (strands).
TOOL_MESSAGE_EVENT = "gen_ai.tool.message"

# Derived child records (reference §10.1 step 7): reasoning, output and user text a record carries
# become rows of their own under it (EventId `<carrier's EventId>:<kind>:<n>`, parent = the carrier).
# User text only where it is not repeated history: of a model call's input messages only the last, when it
# is the user's text.
_ATIF = scope("harbor-atif2otel")
# A model call's input messages (latest GenAI conventions) whose last message is the user's text: that message
# is the user's new turn (the calls after it, which answer tools, end with tool results; history before it
# is replayed). harborlight/transfer/event_content.py reads the same rule into the trajectory's user steps.
NEW_TURN_MESSAGES = "gen_ai.input.messages"
# The same messages flattened into one attribute per field (OpenInference, OpenLLMetry), read by the same rule:
# the user's new turn is the last input message when it is the user's text; the output, the output messages' text.
_OI_TEXTS = (".message.content", ".message.contents.0.message_content.text")
FLAT_INPUT_MESSAGES = (
    FlatMessages("llm.input_messages.", ".message.role", _OI_TEXTS),
    FlatMessages("gen_ai.prompt.", ".role", (".content",)),
)
FLAT_OUTPUT_MESSAGES = (
    FlatMessages(
        "llm.output_messages.",
        ".message.role",
        _OI_TEXTS,
        (".message.tool_calls.", ".tool_call.id", ".tool_call.function.name", ".tool_call.function.arguments"),
    ),
    FlatMessages("gen_ai.completion.", ".role", (".content",), (".tool_calls.", ".id", ".name", ".arguments")),
)
# Value keys the compiler reads them by: the last input message's text when it is the user's (else ''), and the
# first non-empty text of the output messages (else '').
LAST_USER_TEXT, OUTPUT_TEXT = "@last_user_text:", "@output_text:"
# Agents that answer through a tool (the model's final turn is a call of it, its answer an argument: smolagents'
# `final_answer(answer)`): (tool name, the argument that holds the answer). Where a model call's output messages
# have no text, such a call's argument is its text: the final answer. Value key: `@answer_call:<prefix>` of a
# flattened output form with tool calls (the answer, else '').
ANSWER_TOOLS = (("final_answer", "answer"),)
ANSWER_CALL = "@answer_call:"
# The Vercel AI SDK's messages as sent to the provider (`ai.prompt.messages` on a doStream span: [{role, content: a
# text or [{type: "text", text}, ...]}]): the last one, when it is the user's, is the user's new turn (as
# NEW_TURN_MESSAGES). Only of a call that offers tools (ai.prompt.tools) where the run's calls do: see OFFERED_TOOLS.
AI_SDK_MESSAGES, AI_SDK_TOOLS = "ai.prompt.messages", "ai.prompt.tools"
# Value key: the last message's text when its role is user (else '').
LAST_USER_CONTENT = "@last_user_content:"
# Where a model call tells the tools it offered the model (attribute keys, or key prefixes ending in '.'): GenAI's
# gen_ai.tool.definitions, OpenInference's llm.tools.<n>.*, OpenLLMetry's llm.request.functions.<n>.*, the AI SDK's
# ai.prompt.tools. A call that offers none, where the agent's other calls of the same operation do, serves the
# session (opencode's session title, which the AI SDK's signals tell apart no other way): no turn of the agent, so
# no step of its trajectory (its tokens count in the totals) and, for the AI SDK, no user turn.
OFFERED_TOOLS = ("gen_ai.tool.definitions", "llm.tools.", "llm.request.functions.", AI_SDK_TOOLS)
DERIVED: tuple[Derived, ...] = (
    Derived(
        "genai",
        NEW_TURN_MESSAGES,
        "user_message",
        when=attr(f"@last_text_role:{NEW_TURN_MESSAGES}", "user"),
        kinds=("llm_request",),
    ),
    Derived(
        "genai",
        "gen_ai.output.messages",
        parts=(("reasoning", "reasoning"), ("text", "output")),
        kinds=("llm_request",),
    ),
    *(
        Derived("flat_messages", LAST_USER_TEXT + m.prefix, "user_message", kinds=("llm_request",))
        for m in FLAT_INPUT_MESSAGES
    ),
    *(Derived("flat_messages", OUTPUT_TEXT + m.prefix, "output", kinds=("llm_request",)) for m in FLAT_OUTPUT_MESSAGES),
    *(
        Derived("answer_tool", ANSWER_CALL + m.prefix, "output", kinds=("llm_request",))
        for m in FLAT_OUTPUT_MESSAGES
        if m.tool_calls[0]
    ),
    Derived("genai", USER_EVENT_TURN, "user_message", kinds=("llm_request",)),
    Derived("genai", CHOICE_EVENT_TEXT, "output", kinds=("llm_request",)),
    # (not of a failed call: a refused attempt's input is the turn its retry sends again)
    Derived(
        "vercel_ai",
        LAST_USER_CONTENT + AI_SDK_MESSAGES,
        "user_message",
        when=has(AI_SDK_TOOLS) & attr("@span_status", "true", ""),
        kinds=("llm_request",),
    ),
    Derived("vercel_ai", "ai.response.reasoning", "reasoning", kinds=("llm_request",)),
    Derived("vercel_ai", "ai.response.text", "output", kinds=("llm_request",)),
    Derived("atif2otel", "metadata.reasoning_content", "reasoning", when=_ATIF, kinds=("llm_request",)),
    Derived("atif2otel", "output.value", "output", when=_ATIF, kinds=("llm_request",)),
    Derived("claude_code", "user_prompt", "user_message", when=span("claude_code.interaction")),
    # The trajectory's first user message (turn spans carry none; later ones are only in LLM inputs).
    Derived("atif2otel", "input.value", "user_message", when=_ATIF & attr(_OI, "AGENT")),
    Derived("goose", "user_message", "user_message", when=span("reply") & service("goose")),
)
# Log events that each model call emits for every message of its input, the history replayed (GenAI 1.30):
# within one trial and service, the first n of a call's such user messages are the n the call before it told,
# and only the rest are new turns (harborlight/agent/twins.py reads them so).
REPLAYED_MESSAGES = ("gen_ai.user.message",)
# What a derived row keeps of its carrier; every other fact is NULL there, so no total counts twice.
DERIVED_KEEPS = ("job", "trial", "attempt", "task", "agent", "agent_version", "model", "provider", "side_call")

# Tool decisions (reference §10.2: Claude Code "join tool_decision on tool_use_id", Codex "tool
# annotations"): log events folded, when read, onto the tool call with the same id in the same trial
# (harborlight/read/statements/tool_decisions.py).
# (event name, call id key, decision key, source key)
TOOL_DECISIONS = (
    ("claude_code.tool_decision", "tool_use_id", "decision", "source"),
    ("codex.tool_decision", "call_id", "decision", "source"),
)
# Child spans of a tool span that carry its decision (a trial streamed as spans only has no logs).
# (span name, decision key, source key)
TOOL_DECISION_SPANS = (("claude_code.tool.blocked_on_user", "decision", "source"),)

# Tool arguments as the tool received them, where a framework wraps them: (the key of the tool's own arguments,
# the only other keys the wrapper adds, of which a list must be empty). smolagents' OpenInference TOOL span:
# {"args": [], "sanitize_inputs_outputs": true, "kwargs": {"path": ...}}.
ARGUMENT_WRAPPERS = (("kwargs", ("args", "sanitize_inputs_outputs")),)
# Arguments that are no JSON object but one bare value (LangGraph's TOOL span input.value, the tool's single
# parameter): a target path when it reads as one.
BARE_PATH = r"^(?:/|~/|\./|\.\./)[^\s\"]+$"
# Keys of the tool arguments (JSON) that name a target path, and the Codex apply_patch headers.
PATH_KEYS = ("file_path", "notebook_path", "path", "dir_path", "absolute_path", "filename", "workdir", "filePath")
PATCH_HEADERS = (r"\*\*\* (?:Add|Update|Delete) File: ", r"\*\*\* Move to: ")
# A span attribute that is itself a target path (Claude Code tool spans with OTEL_LOG_TOOL_DETAILS).
PATH_ATTRIBUTES = ("file_path",)

# Tool categories: exact names (case-insensitive) first, then the tool part of an MCP name
# (`mcp__server__tool`, `server__tool`, or a tool with mcp_server set), then MCP keywords.
TOOL_CATEGORIES: tuple[Category, ...] = (
    Category(
        "plan",
        names=(
            "todowrite",
            "taskcreate",
            "taskupdate",
            "tasklist",
            "enterplanmode",
            "exitplanmode",
            "update_plan",
            "write_todos",
            "enter_plan_mode",
            "exit_plan_mode",
            "task_tracker",
            "planning_file_editor",
            "think",
            "manage_todo_list",
        ),
        prefixes=("tracker_",),
    ),
    Category(
        "search",
        names=(
            "grep",
            "glob",
            "ls",
            "websearch",
            "toolsearch",
            "grep_search",
            "list_directory",
            "google_web_search",
            "web_search",
            "tool_search",
            "find_file",
            "search_dir",
            "search_file",
            "file_search",
            "semantic_search",
        ),
    ),
    Category(
        "read",
        names=(
            "read",
            "notebookread",
            "webfetch",
            "read_file",
            "read_many_files",
            "web_fetch",
            "view_image",
            "read_mcp_resource",
            "list_mcp_resources",
            "open",
            "goto",
            "scroll_up",
            "scroll_down",
        ),
    ),
    Category(
        "edit",
        names=(
            "edit",
            "multiedit",
            "write",
            "notebookedit",
            "apply_patch",
            "replace",
            "write_file",
            "create",
            "edit_file",
        ),
    ),
    Category(
        "execute",
        names=(
            "bash",
            "powershell",
            "bashoutput",
            "killshell",
            "monitor",
            "shell",
            "shell_command",
            "local_shell",
            "exec_command",
            "write_stdin",
            "run_shell_command",
            "terminal",
            "execute_bash",
            "execute_ipython_cell",
        ),
    ),
    Category(
        "other",
        names=(
            "task",
            "agent",
            "spawn_agent",
            "send_input",
            "wait_agent",
            "close_agent",
            "invoke_agent",
            "delegate",
            "runsubagent",
            "askuserquestion",
            "ask_user",
            "request_user_input",
            "skill",
            "activate_skill",
            "slashcommand",
            "submit",
            "finish",
            "complete_task",
        ),
        prefixes=("browser_",),
    ),
)
# Editor tools whose `command` argument decides between read and edit.
EDITOR_TOOLS = ("str_replace_editor", "file_editor")
EDITOR_COMMANDS = (("read", ("view",)), ("edit", ("create", "str_replace", "insert", "undo_edit")))
# Attributes that mark a tool as an MCP tool even without an mcp__ name.
MCP_MARKERS = (
    ("mcp_server", None),
    ("mcp_server_name", None),
    ("anthropic.mcp.server.name", None),
    ("tool_type", "mcp"),
    ("tool_origin", "mcp"),
)
# Keyword heuristic for MCP tools no exact name matched (substring, in this order).
MCP_KEYWORDS = (
    ("read", ("read", "get", "fetch", "view", "list", "describe", "show", "open")),
    ("search", ("search", "find", "query", "grep", "lookup")),
    ("edit", ("write", "create", "update", "edit", "delete", "patch", "insert", "set", "move", "rename")),
    ("execute", ("run", "exec", "shell", "command", "terminal")),
)
# The log attribute giving an event's duration; the record's timestamp is taken as its end.
LOG_DURATION_KEY = "duration_ms"
# Spans whose timestamps a converter reconstructed rather than measured.
INFERRED_TIMING_SCOPES = ("harbor-atif2otel",)
