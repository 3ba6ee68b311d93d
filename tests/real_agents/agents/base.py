"""What every agent launch shares: the pinned npm install, a clean environment, the telemetry target."""

import json
import os
import shutil
from dataclasses import dataclass
from pathlib import Path

NODE = Path(__file__).resolve().parents[1] / "node"


@dataclass(frozen=True)
class Telemetry:
    """Where and how the agent exports: `endpoint` is the OTLP base URL of the chosen protocol."""

    protocol: str  # "grpc" | "http"
    endpoint: str
    traces: bool  # also export spans (logs and metrics always)
    resource_attributes: str  # OTEL_RESOURCE_ATTRIBUTES


@dataclass(frozen=True)
class Reports:
    """What an agent's own telemetry tells of a model call: which token counts (the rest are null), and
    whether a refused attempt (a 429 it retried) is told at all, and with the model it asked for; whether
    it tells the calls' model and tokens at all, and their content (the prompt, the answer, the tools'
    arguments)."""

    cached: bool
    cache_write: bool
    reasoning: bool
    refusals: bool = True
    refusal_model: bool = True
    model: bool = True
    tokens: bool = True
    content: bool = True


@dataclass(frozen=True)
class Launch:
    argv: list[str]
    env: dict[str, str]


def pinned_version(package: str) -> str:
    return json.loads((NODE / "package.json").read_text())["dependencies"][package]


def missing_reason(package: str, binary: str) -> str | None:
    """Why the pinned agent cannot run here, or None when it can."""
    if not shutil.which("node"):
        return f"{package}: node is not installed"
    installed = NODE / "node_modules" / package / "package.json"
    if not (NODE / "node_modules" / ".bin" / binary).exists() or not installed.exists():
        return f"{package} is not installed: run npm ci in tests/real_agents/node"
    version = json.loads(installed.read_text())["version"]
    if version != pinned_version(package):
        return (
            f"{package} {version} is installed, {pinned_version(package)} is pinned:"
            " run npm ci in tests/real_agents/node"
        )
    return None


def binary(name: str) -> str:
    return str(NODE / "node_modules" / ".bin" / name)


def clean_env(home: Path) -> dict[str, str]:
    """Nothing of the machine's environment (its OTEL_*, API keys, proxies) leaks into a run."""
    node_dir = os.path.dirname(shutil.which("node") or "/usr/bin/node")
    return {
        "PATH": os.pathsep.join(dict.fromkeys([node_dir, "/usr/local/bin", "/usr/bin", "/bin"])),
        "HOME": str(home),
        "TMPDIR": str(home / "tmp"),
        "LANG": "C.UTF-8",
        "TERM": "dumb",
        "NO_COLOR": "1",
        "CI": "1",
    }
