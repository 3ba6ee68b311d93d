"""Gemini CLI (`gemini -p`) against the fake Gemini API, with its OpenTelemetry export on.

Settings from its telemetry documentation: `telemetry` in ~/.gemini/settings.json (enabled, target
local, otlpEndpoint, otlpProtocol grpc|http, logPrompts, traces); the API through GOOGLE_GEMINI_BASE_URL
with GEMINI_API_KEY; --yolo approves every tool; GEMINI_CLI_TRUST_WORKSPACE skips the folder-trust
prompt; usage statistics (Clearcut) off.
"""

import json
from pathlib import Path

from tests.real_agents.agents.base import Launch, Reports, Telemetry, binary, clean_env
from tests.real_agents.providers.gemini import GeminiFake
from tests.real_agents.providers.script import Script, ToolCall

NAME, PACKAGE, BINARY = "gemini-cli", "@google/gemini-cli", "gemini"
MODEL = "gemini-2.5-pro"
REPORTS = Reports(cached=True, cache_write=False, reasoning=True)

TRACES_OPTIONAL = False
VERSION_REPORTED = False  # its service.version is Node's (v20.20.2); its own version is in none of its signals
ONE_ROOT = False  # with traces on, its llm_call and tool spans have no common parent
ARGUMENT_DEFAULTS: dict[str, dict] = {}  # it tells a tool's arguments as the model gave them


def call_id(call: ToolCall) -> str:
    """Gemini CLI prefixes the API's function-call id with the tool's name."""
    return f"{call.name}__{call.id}"


def reported_cost(stdout: str) -> float | None:
    return None  # Gemini CLI reports no cost


def provider(script: Script) -> GeminiFake:
    return GeminiFake(script)


def launch(prompt: str, workspace: Path, home: Path, provider_url: str, telemetry: Telemetry) -> Launch:
    settings = {
        "telemetry": {
            "enabled": True,
            "target": "local",
            "otlpEndpoint": telemetry.endpoint,
            "otlpProtocol": telemetry.protocol,
            "logPrompts": True,
            "traces": telemetry.traces,
        },
        "security": {"auth": {"selectedType": "gemini-api-key"}},
        "privacy": {"usageStatisticsEnabled": False},
        "general": {"disableAutoUpdate": True, "disableUpdateNag": True},
        "model": {"name": MODEL},
    }
    (home / ".gemini").mkdir(parents=True, exist_ok=True)
    (home / ".gemini" / "settings.json").write_text(json.dumps(settings, indent=2))
    env = clean_env(home) | {
        "GEMINI_API_KEY": "fake-gemini-key-for-tests",
        "GOOGLE_GEMINI_BASE_URL": provider_url,
        "GEMINI_CLI_TRUST_WORKSPACE": "true",
        "OTEL_RESOURCE_ATTRIBUTES": telemetry.resource_attributes,
    }
    return Launch([binary(BINARY), "-p", prompt, "--yolo", "-m", MODEL, "--output-format", "json"], env)
