"""Runs of real Python agent frameworks against the fake chat provider, and their recordings.

Each framework lives in a venv of its own (tests/frameworks/.venvs/<name>, built from
requirements/<name>.txt by `python -m tests.frameworks.venvs`): they conflict with each other and with the
test venv. Its driver (tests/frameworks/<driver>.py) runs as a process of that venv's python, with its
telemetry relayed to harborlight (tests/real_agents/otlp_relay.py); the relay keeps the export requests as
OTLP/JSON lines, kept in fixtures/<name>-<version>[-<mode>].jsonl so the checks also replay without the
framework installed.

    PYTHONPATH=$PWD .venv/bin/python -m tests.frameworks.record [name ...]    # re-records (all by default)

A recording names its job and trial as a run under Harbor would (OTEL_RESOURCE_ATTRIBUTES).
"""

import os
import re
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from tests.frameworks.chat_provider import ChatProvider
from tests.real_agents.otlp_relay import OtlpRelay

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).parent
FIXTURES = HERE / "fixtures"
REQUIREMENTS = HERE / "requirements"
VENVS = HERE / ".venvs"


@dataclass(frozen=True)
class Framework:
    name: str  # its venv, requirements/<name>.txt and recordings are named so
    package: str  # the distribution whose pinned version names the recordings
    driver: str  # module tests.frameworks.<driver>
    modes: dict[str, dict[str, str]] = field(default_factory=lambda: {"": {}})  # mode ("" the default) -> env

    @property
    def python(self) -> Path:
        return VENVS / self.name / "bin" / "python"

    @property
    def installed(self) -> bool:
        """Its venv is built from the current requirements (the builder copies them in last)."""
        stamp = VENVS / self.name / "requirements.txt"
        return (self.python.exists() and stamp.exists()
                and stamp.read_text() == (REQUIREMENTS / f"{self.name}.txt").read_text())

    @property
    def version(self) -> str:
        pins = (REQUIREMENTS / f"{self.name}.txt").read_text()
        found = re.search(rf"^{re.escape(self.package)}(?:\[[^\]]*\])?==(\S+)", pins, re.M | re.I)
        assert found, f"{self.package} is not pinned in requirements/{self.name}.txt"
        return found[1]


FRAMEWORKS = {f.name: f for f in [
    Framework("openai-agents", "openai-agents", "openai_agents_run",
              {"": {}, "with-openai-client": {"WITH_OPENAI_CLIENT_INSTRUMENTATION": "1"}}),
    Framework("pydantic-ai", "pydantic-ai-slim", "pydantic_ai_run"),
    Framework("langgraph", "langgraph", "langgraph_run"),
    Framework("strands", "strands-agents", "strands_run",
              {"": {}, "latest-experimental": {"OTEL_SEMCONV_STABILITY_OPT_IN": "gen_ai_latest_experimental"}}),
    Framework("google-adk", "google-adk", "google_adk_run",
              {"": {}, "content": {"OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT": "SPAN_AND_EVENT"}}),
    Framework("smolagents", "smolagents", "smolagents_run"),
    Framework("traceloop", "traceloop-sdk", "traceloop_run"),
]}
# (framework, mode) in priority order
CASES = [(f.name, mode) for f in FRAMEWORKS.values() for mode in f.modes]


def case_id(name: str, mode: str) -> str:
    return f"{name}-{mode}" if mode else name


@dataclass(frozen=True)
class Run:
    lines: list[str]  # the export requests as OTLP/JSON lines
    served: list[str]  # the API of each model call the fake answered


def run(grpc_endpoint: str, http_url: str, name: str, mode: str, service: str, job: str, trial: str) -> Run:
    """The framework's driver run once (a process of its own, in the framework's venv) with its telemetry
    relayed to harborlight."""
    framework = FRAMEWORKS[name]
    with ChatProvider() as provider, OtlpRelay(grpc_endpoint, http_url) as relay, \
            tempfile.TemporaryDirectory() as home:
        env = {key: value for key, value in os.environ.items() if not key.startswith(("OTEL_", "VIRTUAL_ENV"))}
        env.update({**framework.modes[mode], "PYTHONPATH": str(ROOT), "HOME": home,
                    "OPENAI_API_KEY": "fake", "GOOGLE_API_KEY": "fake",
                    "OTEL_RESOURCE_ATTRIBUTES": f"harbor.job.name={job},harbor.trial.name={trial}"})
        done = subprocess.run([str(framework.python), "-m", f"tests.frameworks.{framework.driver}", provider.url,
                               relay.http_endpoint, service], env=env, cwd=ROOT, timeout=300,
                              capture_output=True, text=True)
        assert done.returncode == 0, f"{framework.driver} failed:\n{done.stdout[-3000:]}\n{done.stderr[-6000:]}"
        relay.wait_stored()
    assert relay.failures == [], relay.failures
    return Run(list(relay.lines), list(provider.served))


def fixture_path(name: str, mode: str) -> Path:
    return FIXTURES / f"{name}-{FRAMEWORKS[name].version}{f'-{mode}' if mode else ''}.jsonl"


def fixture_names(name: str, mode: str) -> tuple[str, str, str]:
    """(service, job, trial) a recording of the framework's mode was made under."""
    stem = case_id(name, mode)
    return stem, f"fixture-{stem}", f"{stem}__1"


def record(names: list[str]) -> None:
    from harborlight.settings import Settings
    from tests.support.servers import InProcessServer

    FIXTURES.mkdir(exist_ok=True)
    with tempfile.TemporaryDirectory() as store:
        server = InProcessServer(Settings(data_dir=Path(store))).start()
        try:
            for name, mode in CASES:
                if name not in names:
                    continue
                got = run(server.grpc_endpoint, server.http_url, name, mode, *fixture_names(name, mode))
                for old in FIXTURES.glob(f"{name}-*{f'-{mode}' if mode else ''}.jsonl"):
                    if old.name != fixture_path(name, mode).name and _mode_of(old, name) == mode:
                        old.unlink()  # a recording of an older version
                fixture_path(name, mode).write_text("".join(line + "\n" for line in got.lines))
                print(f"{case_id(name, mode)}: {len(got.lines)} requests, served {got.served} "
                      f"-> {fixture_path(name, mode).name}")
        finally:
            server.stop()


def _mode_of(path: Path, name: str) -> str:
    rest = path.stem[len(name) + 1:]  # <version>[-<mode>]
    return rest.partition("-")[2] if "-" in rest else ""


if __name__ == "__main__":
    record(sys.argv[1:] or list(FRAMEWORKS))
