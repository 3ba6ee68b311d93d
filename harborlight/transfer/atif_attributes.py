"""How an ATIF trajectory travels as spans: the attribute names the Harbor importer writes and the
exporter reads back. Standard GenAI semantic-convention names carry the facts every reader
understands (model, tokens, cost, tool name, call id, arguments, result, messages); `atif.*` names
carry what only a trajectory has (step ids, extras, original timestamps), so a round trip is exact.
"""

from harborlight.agent.rules import TRAJECTORY_SCOPES

OPERATION = "gen_ai.operation.name"
AGENT_NAME = "gen_ai.agent.name"
AGENT_VERSION = "gen_ai.agent.version"
AGENT_ID = "gen_ai.agent.id"  # the trajectory_id
CONVERSATION_ID = "gen_ai.conversation.id"  # the session_id
REQUEST_MODEL = "gen_ai.request.model"
INPUT_MESSAGES = "gen_ai.input.messages"
OUTPUT_MESSAGES = "gen_ai.output.messages"
INPUT_TOKENS = "gen_ai.usage.input_tokens"
OUTPUT_TOKENS = "gen_ai.usage.output_tokens"
CACHED_TOKENS = "gen_ai.usage.cache_read.input_tokens"
COST = "gen_ai.usage.cost"
TOOL_NAME = "gen_ai.tool.name"
TOOL_CALL_ID = "gen_ai.tool.call.id"
TOOL_ARGUMENTS = "gen_ai.tool.call.arguments"
TOOL_RESULT = "gen_ai.tool.call.result"

# Trajectory level (on the invoke_agent span).
SCHEMA_VERSION = "atif.schema_version"
AGENT_EXTRA = "atif.agent.extra"
TOOL_DEFINITIONS = "atif.agent.tool_definitions"
NOTES = "atif.notes"
FINAL_METRICS = "atif.final_metrics"
TRAJECTORY_EXTRA = "atif.extra"
CONTINUED_REF = "atif.continued_trajectory_ref"
# Step level (on the user_prompt / chat span).
STEP_ID = "atif.step.id"
STEP_SOURCE = "atif.step.source"
STEP_TIMESTAMP = "atif.step.timestamp"  # as written; absent when the step had none
STEP_EXTRA = "atif.step.extra"
STEP_MESSAGE = "atif.step.message"  # content parts (JSON), when the message is not plain text
COPIED_CONTEXT = "atif.step.is_copied_context"
REASONING_EFFORT = "atif.step.reasoning_effort"
LLM_CALL_COUNT = "atif.step.llm_call_count"
METRICS = "atif.step.metrics"  # the step's Metrics object (JSON), token ids and extras included
OTHER_RESULTS = "atif.step.observation_results"  # observation results not tied to a tool call (JSON)
# Tool call level (on the execute_tool span).
TOOL_CALL_EXTRA = "atif.tool_call.extra"
RESULT_PARTS = "atif.observation.content"  # content parts (JSON), when the result is not plain text
RESULT_EXTRA = "atif.observation.extra"
SUBAGENT_REFS = "atif.observation.subagent_refs"
HAS_RESULT = "atif.observation.present"

SCOPE = TRAJECTORY_SCOPES[0]
