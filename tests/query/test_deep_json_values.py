"""Telemetry values that are JSON nested far deeper than any reader follows (a tool call's arguments,
an ATIF trajectory's final_metrics, 200,000 levels): every route over the trial answers, the value
read as text or as not JSON, never a 500, and the CLI prints no traceback."""

import uuid

import httpx
import pytest

from tests.agent.otlp_build import Traces
from tests.cli.commands import run

DEEP = "[" * 200_000 + "]" * 200_000


@pytest.fixture(scope="module")
def trial(server):
    job, trial = f"job-{uuid.uuid4().hex[:12]}-deepjson", f"{uuid.uuid4().hex[:12]}-deepjson"
    traces = Traces({"service.name": "agent", "harbor.job.name": job, "harbor.trial.name": trial})
    root = traces.span(
        "invoke_agent", {"gen_ai.operation.name": "invoke_agent", "atif.final_metrics": DEEP}, dur_ms=1000
    )
    traces.span(
        "chat",
        {
            "gen_ai.operation.name": "chat",
            "gen_ai.request.model": "m",
            "gen_ai.usage.input_tokens": 10,
            "gen_ai.usage.output_tokens": 1,
        },
        parent=root,
        start_ms=1,
        dur_ms=10,
    )
    traces.span(
        "execute_tool Bash",
        {
            "gen_ai.operation.name": "execute_tool",
            "gen_ai.tool.name": "Bash",
            "gen_ai.tool.call.id": "c1",
            "gen_ai.tool.call.arguments": DEEP,
            "gen_ai.tool.call.result": DEEP,
        },
        parent=root,
        start_ms=20,
        dur_ms=5,
    )
    traces.send(server)
    server.caught_up()
    return job, trial


@pytest.mark.parametrize("route", ["", "/trace", "/time", "/behavior", "/durations"])
def test_the_trial_routes_answer(server, trial, route):
    job, name = trial
    reply = httpx.get(f"{server.http_url}/api/trials/{name}{route}", params={"job": job}, timeout=120)
    assert reply.status_code == 200, reply.text[:300]


def test_the_trace_says_the_final_metrics_are_not_read(server, trial):
    job, name = trial
    totals = httpx.get(f"{server.http_url}/api/trials/{name}/trace", params={"job": job}, timeout=120).json()["totals"]
    assert totals["value"] is None or totals["value"]["final_metrics"] == []


def test_spans_and_the_trajectory_answer(server, trial):
    job, name = trial
    spans = httpx.get(f"{server.http_url}/api/spans", params={"trial": name, "job": job}, timeout=120)
    assert spans.status_code == 200, spans.text[:300]
    trajectory = httpx.get(f"{server.http_url}/api/trials/{name}/trajectory", params={"job": job}, timeout=120)
    assert trajectory.status_code in (200, 422), trajectory.text[:300]


@pytest.mark.parametrize("command", ["trial", "trace"])
def test_the_cli_answers(server, trial, capsys, command):
    job, name = trial
    code, out, err = run(capsys, command, name, "--job", job, "--server", server.http_url)
    assert code == 0, err
    assert "Traceback" not in out + err


def test_final_metrics_nested_deeper_than_atif_are_not_final_metrics():
    from harborlight.read.derive.producer_totals import final_metrics_of

    assert final_metrics_of("a", "t", '{"total_steps": 3, "extra": {"x": [1]}}').final_metrics["total_steps"] == 3
    for depth in (40, 1_000, 200_000):
        assert final_metrics_of("a", "t", '{"x":' * depth + "1" + "}" * depth) is None


def test_the_export_answers_in_one_line(server, trial, capsys, tmp_path):
    job, _ = trial
    reply = httpx.get(f"{server.http_url}/api/jobs/{job}/export", timeout=120)
    assert reply.status_code in (200, 422), reply.text[:300]
    code, out, err = run(capsys, "export-job", job, "--out", str(tmp_path / "jobs"), "--server", server.http_url)
    assert code == 0 or (code == 1 and len(err.strip().splitlines()) == 1), err
    assert "Traceback" not in out + err


def test_the_cli_on_its_own_store_answers_in_one_line(tmp_path):
    """Read straight from a store (no server): the import of the trial and its export."""
    import json

    from tests.cli.commands import process

    attrs = [
        {"key": "gen_ai.operation.name", "value": {"stringValue": "execute_tool"}},
        {"key": "gen_ai.tool.name", "value": {"stringValue": "Bash"}},
        {"key": "gen_ai.tool.call.id", "value": {"stringValue": "c1"}},
        {"key": "gen_ai.tool.call.arguments", "value": {"stringValue": DEEP}},
    ]
    resource = [
        {"key": k, "value": {"stringValue": v}}
        for k, v in (("service.name", "agent"), ("harbor.job.name", "deep-job"), ("harbor.trial.name", "deep-trial"))
    ]
    span = {
        "traceId": "ab" * 16,
        "spanId": "cd" * 8,
        "name": "execute_tool Bash",
        "kind": 1,
        "startTimeUnixNano": "1764547200000000000",
        "endTimeUnixNano": "1764547201000000000",
        "attributes": attrs,
    }
    lines = tmp_path / "deep.jsonl"
    lines.write_text(
        json.dumps(
            {
                "resourceSpans": [
                    {"resource": {"attributes": resource}, "scopeSpans": [{"scope": {"name": "t"}, "spans": [span]}]}
                ]
            }
        )
    )
    store = str(tmp_path / "store")
    imported = process("import", "otlp", str(lines), "--data-dir", store, timeout=300)
    assert imported.returncode == 0, imported.stderr
    exported = process("export-job", "deep-job", "--out", str(tmp_path / "jobs"), "--data-dir", store, timeout=300)
    assert "Traceback" not in exported.stdout + exported.stderr, exported.stderr[-2000:]
    assert (
        exported.returncode == 0 or len([line for line in exported.stderr.splitlines() if "WARNING" not in line]) == 1
    )
