"""Codex CLI (`codex exec`) against the fake Responses API, with its OpenTelemetry export on.

Settings from Codex's configuration reference, in $CODEX_HOME/config.toml: a `model_providers` entry
with `base_url` and `wire_api = "responses"` (its key from OPENAI_API_KEY), and `[otel]` with `exporter`
(logs), `trace_exporter`, `metrics_exporter` as otlp-grpc (an endpoint) or otlp-http (one URL per signal,
binary protobuf), `log_user_prompt` and `log_agent_responses`. Approvals off and no sandbox (CI's container has
none to offer); analytics and feedback uploads off.
"""

from pathlib import Path

from tests.real_agents.agents.base import Launch, Reports, Telemetry, binary, clean_env
from tests.real_agents.providers.openai_responses import OpenAIResponsesFake
from tests.real_agents.providers.script import Script, ToolCall

NAME, PACKAGE, BINARY = "codex", "@openai/codex", "codex"
MODEL = "gpt-5.5"  # a model this version has metadata for (its tools, apply_patch among them)
REPORTS = Reports(cached=True, cache_write=True, reasoning=True)

TRACES_OPTIONAL = False
VERSION_REPORTED = True
ONE_ROOT = False  # its model calls (codex.sse_event response.completed) carry no span context
ARGUMENT_DEFAULTS: dict[str, dict] = {}  # it tells a tool's arguments as the model gave them


def call_id(call: ToolCall) -> str:
    return call.id


def reported_cost(stdout: str) -> float | None:
    return None  # Codex reports no cost


def provider(script: Script) -> OpenAIResponsesFake:
    return OpenAIResponsesFake(script)


def _exporter(telemetry: Telemetry, signal: str) -> str:
    if telemetry.protocol == "grpc":
        return f'{{ otlp-grpc = {{ endpoint = "{telemetry.endpoint}" }} }}'
    return f'{{ otlp-http = {{ endpoint = "{telemetry.endpoint}/v1/{signal}", protocol = "binary" }} }}'


def config(provider_url: str, telemetry: Telemetry) -> str:
    traces = _exporter(telemetry, "traces") if telemetry.traces else '"none"'
    return f"""model = "{MODEL}"
model_provider = "fake"
approval_policy = "never"
sandbox_mode = "danger-full-access"
check_for_update_on_startup = false

[model_providers.fake]
name = "fake"
base_url = "{provider_url}/v1"
wire_api = "responses"
env_key = "OPENAI_API_KEY"
request_max_retries = 4
stream_max_retries = 2

[analytics]
enabled = false

[feedback]
enabled = false

[otel]
environment = "test"
log_user_prompt = true
# Not in the configuration reference, and the only way the model's reply text reaches telemetry.
log_agent_responses = true
exporter = {_exporter(telemetry, "logs")}
trace_exporter = {traces}
metrics_exporter = {_exporter(telemetry, "metrics")}
"""


def launch(prompt: str, workspace: Path, home: Path, provider_url: str, telemetry: Telemetry) -> Launch:
    codex_home = home / ".codex"
    codex_home.mkdir(parents=True, exist_ok=True)
    (codex_home / "config.toml").write_text(config(provider_url, telemetry))
    env = clean_env(home) | {
        "CODEX_HOME": str(codex_home),
        "OPENAI_API_KEY": "sk-fake-openai-key-for-tests",
        "OTEL_RESOURCE_ATTRIBUTES": telemetry.resource_attributes,
    }
    return Launch([binary(BINARY), "exec", "--skip-git-repo-check", prompt], env)
