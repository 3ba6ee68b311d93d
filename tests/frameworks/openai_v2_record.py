"""Runs of the official OpenAI instrumentation (opentelemetry-instrumentation-openai-v2) against the fake chat
provider, and their recordings: the export requests exactly as harborlight received them (the Collector file
exporter's OTLP/JSON lines, which `harborlight import otlp` reads), kept in fixtures/ so the checks also replay
without the instrumentation installed.

    PYTHONPATH=$PWD .venv/bin/python -m tests.frameworks.openai_v2_record    # re-records both modes

A recording names its job and trial as a run under Harbor would (OTEL_RESOURCE_ATTRIBUTES).
"""

import os
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from tests.frameworks.chat_provider import ChatProvider
from tests.real_agents.otlp_relay import OtlpRelay

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = Path(__file__).parent / "fixtures"
VERSION = "2.4b0"  # pinned in pyproject.toml
# The instrumentation's two content modes: GenAI 1.30 (content as log events) and the latest experimental
# conventions (gen_ai.input/output.messages on the spans and in inference.operation.details events).
MODES = {
    "GenAI 1.30 events": {"OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT": "true"},
    "latest experimental": {
        "OTEL_SEMCONV_STABILITY_OPT_IN": "gen_ai_latest_experimental",
        "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT": "SPAN_AND_EVENT",
    },
}
STEMS = {"GenAI 1.30 events": "genai-1.30-events", "latest experimental": "latest-experimental"}


@dataclass(frozen=True)
class Run:
    lines: list[str]  # the export requests as OTLP/JSON lines
    n_requests_served: int  # chat completions the fake answered


def run(grpc_endpoint: str, http_url: str, mode: str, service: str, job: str, trial: str) -> Run:
    """The instrumentation run once (a process of its own) with its telemetry relayed to harborlight."""
    with ChatProvider() as provider, OtlpRelay(grpc_endpoint, http_url) as relay:
        env = {
            **os.environ,
            **MODES[mode],
            "PYTHONPATH": str(ROOT),
            "OTEL_RESOURCE_ATTRIBUTES": f"harbor.job.name={job},harbor.trial.name={trial}",
        }
        subprocess.run(
            [sys.executable, "-m", "tests.frameworks.openai_v2_run", provider.url, relay.http_endpoint, service],
            env=env,
            cwd=ROOT,
            check=True,
            timeout=300,
        )
        relay.wait_stored()
        served = sum(1 for r in provider.requests if r.path.endswith("/chat/completions"))
    assert relay.failures == [], relay.failures
    return Run(list(relay.lines), served)


def fixture_path(mode: str) -> Path:
    return FIXTURES / f"openai-v2-{VERSION}-{STEMS[mode]}.jsonl"


def fixture_names(mode: str) -> tuple[str, str, str]:
    """(service, job, trial) a recording of the mode was made under."""
    stem = STEMS[mode]
    return f"openai-v2-{stem}", f"fixture-openai-v2-{stem}", f"openai-v2-{stem}__1"


def record() -> None:
    from harborlight.settings import Settings
    from tests.support.servers import InProcessServer

    FIXTURES.mkdir(exist_ok=True)
    with tempfile.TemporaryDirectory() as store:
        server = InProcessServer(Settings(data_dir=Path(store))).start()
        try:
            for mode in MODES:
                got = run(server.grpc_endpoint, server.http_url, mode, *fixture_names(mode))
                fixture_path(mode).write_text("".join(line + "\n" for line in got.lines))
                print(f"{mode}: {len(got.lines)} requests -> {fixture_path(mode).name}")
        finally:
            server.stop()


if __name__ == "__main__":
    record()
