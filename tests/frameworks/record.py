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
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from tests.frameworks.chat_provider import ChatProvider
from tests.frameworks.frameworks import CASES, FIXTURES, FRAMEWORKS, ROOT, case_id, fixture_names, fixture_path, mode_of
from tests.real_agents.otlp_relay import OtlpRelay


@dataclass(frozen=True)
class Run:
    lines: list[str]  # the export requests as OTLP/JSON lines
    served: list[str]  # the API of each model call the fake answered


def run(grpc_endpoint: str, http_url: str, name: str, mode: str, service: str, job: str, trial: str) -> Run:
    """The framework's driver run once (a process of its own, in the framework's venv) with its telemetry
    relayed to harborlight."""
    framework = FRAMEWORKS[name]
    with ChatProvider() as provider, OtlpRelay(grpc_endpoint, http_url) as relay, tempfile.TemporaryDirectory() as home:
        env = {key: value for key, value in os.environ.items() if not key.startswith(("OTEL_", "VIRTUAL_ENV"))}
        env.update(
            {
                **framework.modes[mode],
                "PYTHONPATH": str(ROOT),
                "HOME": home,
                "OPENAI_API_KEY": "fake",
                "GOOGLE_API_KEY": "fake",
                "OTEL_RESOURCE_ATTRIBUTES": f"harbor.job.name={job},harbor.trial.name={trial}",
            }
        )
        done = subprocess.run(
            [
                str(framework.python),
                "-m",
                f"tests.frameworks.{framework.driver}",
                provider.url,
                relay.http_endpoint,
                service,
            ],
            env=env,
            cwd=ROOT,
            timeout=300,
            capture_output=True,
            text=True,
        )
        assert done.returncode == 0, f"{framework.driver} failed:\n{done.stdout[-3000:]}\n{done.stderr[-6000:]}"
        relay.wait_stored()
    assert relay.failures == [], relay.failures
    return Run(list(relay.lines), list(provider.served))


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
                    if old.name != fixture_path(name, mode).name and mode_of(old, name) == mode:
                        old.unlink()  # a recording of an older version
                fixture_path(name, mode).write_text("".join(line + "\n" for line in got.lines))
                print(
                    f"{case_id(name, mode)}: {len(got.lines)} requests, served {got.served} "
                    f"-> {fixture_path(name, mode).name}"
                )
        finally:
            server.stop()


if __name__ == "__main__":
    record(sys.argv[1:] or list(FRAMEWORKS))
