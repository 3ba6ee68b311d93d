"""Claude Code (`claude -p`) against the fake Anthropic API, with its OpenTelemetry export on.

Settings from Claude Code's monitoring documentation: CLAUDE_CODE_ENABLE_TELEMETRY=1, the OTEL_*_EXPORTER
variables, OTEL_LOG_USER_PROMPTS / OTEL_LOG_TOOL_DETAILS for prompts and tool arguments, and its beta
traces with CLAUDE_CODE_ENHANCED_TELEMETRY_BETA=1 + OTEL_TRACES_EXPORTER=otlp. Tools are allowed by
name (--allowedTools): permission bypass is refused to root, which CI runs as.
"""

import json
from pathlib import Path

from tests.real_agents.agents.base import Launch, Reports, Telemetry, binary, clean_env
from tests.real_agents.providers.anthropic import AnthropicFake
from tests.real_agents.providers.script import Script, ToolCall

NAME, PACKAGE, BINARY = "claude-code", "@anthropic-ai/claude-code", "claude"
MODEL = "claude-sonnet-4-5-20250929"
SMALL_MODEL = "claude-haiku-4-5-20251001"  # its side calls (session title)
TOOLS = "Write,Read,Edit,Bash,Agent"
# Thinking counts as output. A 429 it retried is told only as `attempt: 2` on the next attempt's span.
REPORTS = Reports(cached=True, cache_write=True, reasoning=False, refusals=False)

TRACES_OPTIONAL = True  # its beta traces are opt-in: it also runs logs-only
VERSION_REPORTED = True
ONE_ROOT = True  # with traces on, its beta traces put every call of a prompt under claude_code.interaction
# It tells a tool's input as the tool ran it, with the defaults it filled in (its tool_result event's tool_input).
ARGUMENT_DEFAULTS = {"Edit": {"replace_all": False}}


def call_id(call: ToolCall) -> str:
    return call.id


def reported_cost(stdout: str) -> float | None:
    """Claude Code's own total (`--output-format json`), side calls included."""
    return json.loads(stdout)["total_cost_usd"]


def provider(script: Script) -> AnthropicFake:
    return AnthropicFake(script, MODEL)


def launch(prompt: str, workspace: Path, home: Path, provider_url: str, telemetry: Telemetry) -> Launch:
    env = clean_env(home) | {
        "ANTHROPIC_BASE_URL": provider_url,
        "ANTHROPIC_API_KEY": "sk-ant-fake-key-for-tests",
        "ANTHROPIC_DEFAULT_HAIKU_MODEL": SMALL_MODEL,
        "ANTHROPIC_SMALL_FAST_MODEL": SMALL_MODEL,
        "DISABLE_AUTOUPDATER": "1",
        "DISABLE_ERROR_REPORTING": "1",
        "CLAUDE_CODE_ENABLE_TELEMETRY": "1",
        "OTEL_LOGS_EXPORTER": "otlp",
        "OTEL_METRICS_EXPORTER": "otlp",
        "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc" if telemetry.protocol == "grpc" else "http/protobuf",
        "OTEL_EXPORTER_OTLP_ENDPOINT": telemetry.endpoint,
        "OTEL_LOG_USER_PROMPTS": "1",
        "OTEL_LOG_TOOL_DETAILS": "1",
        "OTEL_LOGS_EXPORT_INTERVAL": "500",
        "OTEL_METRIC_EXPORT_INTERVAL": "1000",
        "OTEL_RESOURCE_ATTRIBUTES": telemetry.resource_attributes,
    }
    if telemetry.traces:
        env |= {
            "CLAUDE_CODE_ENHANCED_TELEMETRY_BETA": "1",
            "OTEL_TRACES_EXPORTER": "otlp",
            "OTEL_TRACES_EXPORT_INTERVAL": "500",
        }
    argv = [binary(BINARY), "-p", prompt, "--model", MODEL, "--allowedTools", TOOLS, "--output-format", "json"]
    return Launch(argv, env)
