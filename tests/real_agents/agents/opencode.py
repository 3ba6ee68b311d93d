"""opencode (`opencode run`) against the fake OpenAI Chat Completions API, with its OpenTelemetry export on.

Settings: opencode.json (OPENCODE_CONFIG) with a custom provider on the AI SDK's OpenAI-compatible package
(`provider.fake.npm = "@ai-sdk/openai-compatible"`, options.baseURL, one model), every permission allowed,
sharing, autoupdate and models.dev fetches off. Its OTLP export is OTEL_EXPORTER_OTLP_ENDPOINT alone (OTLP/HTTP,
{endpoint}/v1/traces and /v1/logs; no gRPC exporter): by default its own Effect spans (LLM.run, Tool.execute,
...). `experimental.openTelemetry: true` also turns on the Vercel AI SDK's spans (ai.streamText,
ai.streamText.doStream, ai.toolCall): this is what `traces` selects here — a "-logs" recording is opencode's
default export, spans included.
"""

import json
from pathlib import Path

from tests.real_agents.agents.base import Launch, Reports, Telemetry, binary, clean_env
from tests.real_agents.providers.openai_chat import OpenAIChatFake
from tests.real_agents.providers.script import Script, ToolCall

NAME, PACKAGE, BINARY = "opencode", "opencode-ai", "opencode"
PROVIDER_ID, MODEL_ID = "fake", "fake-coder"
MODEL = MODEL_ID
REPORTS = Reports(cached=True, cache_write=False, reasoning=True)
# Its default export: LLM.run spans with no attribute, Tool.execute spans with the tool's name and call id.
DEFAULT_EXPORT_REPORTS = Reports(
    cached=False, cache_write=False, reasoning=False, model=False, tokens=False, content=False
)


def reports(traces: bool) -> Reports:
    return REPORTS if traces else DEFAULT_EXPORT_REPORTS


PROTOCOLS = ("http",)  # its exporters are OTLP/HTTP only

TRACES_OPTIONAL = True  # default export vs. experimental.openTelemetry (see above)
VERSION_REPORTED = True
ONE_ROOT = False
ARGUMENT_DEFAULTS: dict[str, dict] = {}  # it tells a tool's arguments as the model gave them


def call_id(call: ToolCall) -> str:
    return call.id


def told_prompt(prompt: str) -> str:
    """The prompt as `opencode run` gives it to the model (1.18.33): its message arguments joined by spaces, one
    that holds a space in double quotes, its own quotes escaped. The model's user message is that text."""
    return '"' + prompt.replace('"', '\\"') + '"' if " " in prompt else prompt


def reported_cost(stdout: str) -> float | None:
    return None  # a custom provider's model has no price: opencode's own cost is 0


def provider(script: Script) -> OpenAIChatFake:
    return OpenAIChatFake(script)


def config(provider_url: str, telemetry: Telemetry) -> dict:
    return {
        "$schema": "https://opencode.ai/config.json",
        "provider": {
            PROVIDER_ID: {
                "npm": "@ai-sdk/openai-compatible",
                "name": "Fake OpenAI-compatible",
                "options": {"baseURL": f"{provider_url}/v1", "apiKey": "sk-fake-opencode-key"},
                "models": {MODEL_ID: {"name": "Fake coder", "tool_call": True, "reasoning": True}},
            }
        },
        "model": f"{PROVIDER_ID}/{MODEL_ID}",
        "small_model": f"{PROVIDER_ID}/{MODEL_ID}",
        "autoupdate": False,
        "share": "disabled",
        "permission": {"edit": "allow", "bash": "allow", "read": "allow", "external_directory": "allow"},
        "experimental": {"openTelemetry": telemetry.traces},
    }


def launch(prompt: str, workspace: Path, home: Path, provider_url: str, telemetry: Telemetry) -> Launch:
    path = home / "opencode.json"
    path.write_text(json.dumps(config(provider_url, telemetry), indent=2))
    env = clean_env(home) | {
        "OPENCODE_CONFIG": str(path),
        "OPENCODE_DISABLE_AUTOUPDATE": "1",
        "OPENCODE_DISABLE_MODELS_FETCH": "1",
        "OPENCODE_DISABLE_SHARE": "1",
        "OPENCODE_DISABLE_LSP_DOWNLOAD": "1",
        "OPENCODE_DISABLE_DEFAULT_PLUGINS": "1",
        "OPENCODE_DISABLE_CLAUDE_CODE": "1",
        "OTEL_EXPORTER_OTLP_ENDPOINT": telemetry.endpoint,
        # It does not flush its span batch at exit: with the default 5 s delay a run's last model and tool
        # spans were lost in 3 of 5 recordings. Exported every 200 ms, with room for its ~1000 spans a run;
        # on a loaded machine a live run may still lose its last model call's spans (seen once in 2 live runs).
        "OTEL_BSP_SCHEDULE_DELAY": "200",
        "OTEL_BSP_MAX_QUEUE_SIZE": "16384",
        "OTEL_RESOURCE_ATTRIBUTES": telemetry.resource_attributes,
    }
    argv = [binary(BINARY), "run", "--model", f"{PROVIDER_ID}/{MODEL_ID}", "--format", "json", prompt]
    return Launch(argv, env)
