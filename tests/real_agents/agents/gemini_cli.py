"""Gemini CLI (`gemini -p`) against the fake Gemini API, with its OpenTelemetry export on.

Settings from its telemetry documentation: `telemetry` in ~/.gemini/settings.json (enabled, target
local, otlpEndpoint, otlpProtocol grpc|http, logPrompts, traces); the API through GOOGLE_GEMINI_BASE_URL
with GEMINI_API_KEY; --yolo approves every tool; GEMINI_CLI_TRUST_WORKSPACE skips the folder-trust
prompt; usage statistics (Clearcut) off.
"""

import json
from pathlib import Path

from tests.real_agents.agents.base import Launch, Telemetry, binary, clean_env
from tests.real_agents.providers.gemini import GeminiFake
from tests.real_agents.providers.script import Script

NAME, PACKAGE, BINARY = "gemini-cli", "@google/gemini-cli", "gemini"
MODEL = "gemini-2.5-pro"


def provider(script: Script) -> GeminiFake:
    return GeminiFake(script)


def launch(prompt: str, workspace: Path, home: Path, provider_url: str, telemetry: Telemetry) -> Launch:
    settings = {
        "telemetry": {"enabled": True, "target": "local", "otlpEndpoint": telemetry.endpoint,
                      "otlpProtocol": telemetry.protocol, "logPrompts": True, "traces": telemetry.traces},
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
