"""The dashboards' call panels over real agents' telemetry: Claude Code 2.1.197, Codex 0.171.0 and Gemini CLI
0.61.0, each run for real against the fake model provider (tests/real_agents), which recorded every model
response it served (the .served.json beside each recording). Claude Code and Gemini CLI tell each call
both as a span and as a log event; a panel must count each call once, with its tokens and cost, as the
provider served them — the expected figures come from the provider's record, not from harborlight."""

import json
import subprocess
import sys
from collections import Counter
from datetime import UTC, datetime, timedelta

import pytest

from tests.grafana.macros import TimeRange
from tests.real_agents.recordings import FIXTURES

JOB = "harborlight-job.json"
TRIAL = "harborlight-trial.json"
RECORDED = ("claude-code-2.1.197-three-turn-http", "codex-0.171.0-three-turn-http", "gemini-cli-0.61.0-three-turn-http")
# The recordings keep the clock of the runs they recorded: the panels look at a wide range.
EVER = TimeRange(datetime(2020, 1, 1, tzinfo=UTC), datetime.now(UTC) + timedelta(days=1), interval_s=86_400)


def _renamed(line: str, job: str) -> str:
    """The recorded request with its job renamed (other tests import the same recordings)."""
    body = json.loads(line)
    for signal in ("resourceLogs", "resourceSpans", "resourceMetrics"):
        for resource in body.get(signal, []):
            for a in resource["resource"]["attributes"]:
                if a["key"] == "harbor.job.name":
                    a["value"] = {"stringValue": job}
    return json.dumps(body)


@pytest.mark.parametrize("stem", RECORDED)
def test_call_panels_count_what_the_provider_served(server, grafana, tmp_path, unique, stem):
    served = json.loads((FIXTURES / f"{stem}.served.json").read_text())
    job = f"{served['agent']}-{unique}"
    telemetry = tmp_path / f"{stem}.jsonl"
    telemetry.write_text(
        "\n".join(_renamed(line, job) for line in (FIXTURES / f"{stem}.jsonl").read_text().splitlines())
    )
    done = subprocess.run(
        [sys.executable, "-m", "harborlight.cli.main", "import", "otlp", str(telemetry), "--server", server.http_url],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    server.caught_up()

    by_model = {r["model"]: r for r in grafana.panel(JOB, "Models", {"job": job}, EVER).dicts()}
    assert {m: r["calls"] for m, r in by_model.items()} == dict(Counter(s["model"] for s in served["served"]))
    if served.get("reported_cost_usd") is not None:  # Claude Code reports each call's cost on its log events
        assert sum(r["cost_usd"] for r in by_model.values()) == pytest.approx(served["reported_cost_usd"])
    kinds = grafana.panel(TRIAL, "Agent events by kind", {"job": job, "trial": served["trial"]}, EVER).dicts()
    assert sum(r["llm_request"] for r in kinds) == len(served["served"])
