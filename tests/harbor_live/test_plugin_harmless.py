"""The plugin never harms the Harbor job it streams: a real Harbor job (Harbor's Job API, the host
environment and the scripted agent) with the plugin ends as it ends without it, whatever the trials
leave in their directories and whatever its endpoint does; and it speaks the protocol the
OpenTelemetry exporter's variables name.

- Hostile trial files: an agent/trajectory.json that is no ATIF trajectory (`steps` not a list), a
  verifier/report.json that is not JSON. Each such trial is logged with its name and counted; every
  trial has its result.json, the job its finished_at; the other trials are streamed.
- An endpoint that accepts connections and never answers: the job takes at most the start's probe
  (5 s) and the end's wait (`end_timeout`, 30 s by default) longer than without the plugin; the test
  allows 60 s more (the machine is shared). Measured: 4 trials 0.5-0.9 s without the plugin, 35.9-37.0 s
  with it; before, past 150 s.
- OTEL_EXPORTER_OTLP_ENDPOINT at harborlight's gRPC port with OTEL_EXPORTER_OTLP_PROTOCOL=grpc: the
  job arrives over gRPC.
"""

import asyncio
import contextlib
import logging
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import httpx
import pytest
from harbor.cli.job_plugins import PluginConfig
from harbor.models.job.config import JobConfig
from harbor.models.job.result import JobResult
from harbor.models.trial.config import AgentConfig, EnvironmentConfig, TaskConfig
from harbor.models.trial.result import TrialResult

from tests.harbor_live.harbor_run import TEST_SH, job_config, make_task, run_job_with_plugins
from tests.harbor_live.host_environment import HostEnvironment
from tests.harbor_live.scripted_agent import ScriptedAgent
from tests.harbor_live.test_harbor_run_cli import harbor_env

PLUGIN = "harborlight.harbor.plugin:HarborlightPlugin"
LOGGER = "harborlight.harbor.plugin"
PROBE_S, END_TIMEOUT_S = 5, 30  # the plugin's defaults: the most the job's start and end wait for it
ALLOWED_EXTRA_S = 60  # PROBE_S + END_TIMEOUT_S, and room for a loaded machine


def _hostile_config(root: Path, name: str) -> JobConfig:
    """Three tasks, two attempts each: one solved, one whose agent leaves a trajectory.json with
    `steps` not a list, one whose verifier leaves a report.json that is not JSON."""
    tasks = [
        make_task(root, "solve-it", "Write the answer."),
        make_task(root, "broken-trajectory", "Write the answer, with a broken trajectory."),
        make_task(
            root,
            "broken-report",
            "Write the answer.",
            test_sh=TEST_SH + "echo '{not json' > /logs/verifier/report.json\n",
        ),
    ]
    return JobConfig(
        job_name=name,
        jobs_dir=root / "jobs",
        n_attempts=2,
        n_concurrent_trials=2,
        quiet=True,
        skip_credential_checks=True,
        agents=[
            AgentConfig(import_path=f"{ScriptedAgent.__module__}:ScriptedAgent", model_name="scripted/scripted-model-1")
        ],
        environment=EnvironmentConfig(import_path=f"{HostEnvironment.__module__}:HostEnvironment"),
        tasks=[TaskConfig(path=t) for t in tasks],
    )


def _run(config: JobConfig, plugins: list[PluginConfig]):
    started = time.monotonic()
    job, result, attached = asyncio.run(run_job_with_plugins(config, plugins))
    return job, result, attached, time.monotonic() - started


def _trials(job_dir: Path) -> dict[str, TrialResult]:
    """Each trial directory's result.json (None where Harbor wrote none)."""
    return {
        p.name: TrialResult.model_validate_json((p / "result.json").read_text())
        if (p / "result.json").is_file()
        else None
        for p in job_dir.iterdir()
        if p.is_dir()
    }


def _outcomes(trials: dict[str, TrialResult]) -> list[tuple]:
    """Per trial, by task: its rewards and its exception type."""
    return sorted(
        (
            r.task_name,
            r.verifier_result.rewards if r.verifier_result else None,
            r.exception_info.exception_type if r.exception_info else None,
        )
        for r in trials.values()
    )


def test_hostile_trial_files_leave_the_job_as_it_is_without_the_plugin(server, tmp_path, unique, caplog):
    job = f"hostile-{unique}"
    plain, plain_result, _, _ = _run(_hostile_config(tmp_path / "plain", f"{job}-plain"), [])
    with caplog.at_level(logging.WARNING, logger=LOGGER):
        streamed, result, (plugin,), _ = _run(
            _hostile_config(tmp_path / "streamed", job),
            [PluginConfig(import_path=PLUGIN, kwargs={"endpoint": server.http_url})],
        )
    # The job ended as it does without the plugin: every trial's result.json, the job's finished_at.
    trials, plain_trials = _trials(streamed.job_dir), _trials(plain.job_dir)
    assert len(trials) == len(plain_trials) == 6 and None not in trials.values()
    assert _outcomes(trials) == _outcomes(plain_trials)
    assert JobResult.model_validate_json((streamed.job_dir / "result.json").read_text()).finished_at is not None
    assert (
        (result.stats.n_completed_trials, result.stats.n_errored_trials)
        == (plain_result.stats.n_completed_trials, plain_result.stats.n_errored_trials)
        == (6, 0)
    )
    # Each hostile trial is logged with its name and what was wrong, and counted.
    lines = [r.getMessage() for r in caplog.records]
    hostile = [name for name in trials if not name.startswith("solve-it")]
    for name in hostile:
        why = "Trajectory" if name.startswith("broken-trajectory") else "report.json"
        assert any(f"trial {name}: its end not sent" in line and why in line for line in lines), (name, lines)
    assert plugin.unreadable >= len(hostile) and plugin.failures >= len(hostile)
    assert not plugin.unreachable and plugin.dropped == 0
    # The other trials were streamed, solved.
    server.caught_up()
    for name in (n for n in trials if n.startswith("solve-it")):
        row = httpx.get(f"{server.http_url}/api/trials/{name}", params={"job": job}, timeout=120)
        assert row.status_code == 200 and row.json()["outcome"]["value"] == "resolved", row.text


class _SilentEndpoint:
    """Accepts connections and never answers (nor reads)."""

    def __init__(self) -> None:
        self._socket = socket.create_server(("127.0.0.1", 0), backlog=128)
        self.port = self._socket.getsockname()[1]
        self.accepted: list[socket.socket] = []
        self._thread = threading.Thread(target=self._accept, daemon=True)
        self._thread.start()

    def _accept(self) -> None:
        while True:
            try:
                connection, _ = self._socket.accept()
            except OSError:
                return
            self.accepted.append(connection)

    def close(self) -> None:
        # shutdown wakes the accept() the thread is blocked in (close alone does not): joined, it accepts no
        # connection after the ones closed here
        with contextlib.suppress(OSError):
            self._socket.shutdown(socket.SHUT_RDWR)
        self._socket.close()
        self._thread.join(30)
        for connection in self.accepted:
            connection.close()


@pytest.fixture
def silent_endpoint():
    endpoint = _SilentEndpoint()
    yield endpoint
    endpoint.close()


def test_an_endpoint_that_never_answers_costs_the_job_a_bounded_time(silent_endpoint, tmp_path, unique, caplog):
    url = f"http://127.0.0.1:{silent_endpoint.port}"
    plain, _, _, plain_s = _run(job_config(tmp_path / "plain", f"silent-{unique}-plain"), [])
    with caplog.at_level(logging.WARNING, logger=LOGGER):
        streamed, result, (plugin,), streamed_s = _run(
            job_config(tmp_path / "streamed", f"silent-{unique}"),
            [PluginConfig(import_path=PLUGIN, kwargs={"endpoint": url})],
        )
    print(f"4 trials: {plain_s:.1f} s without the plugin, {streamed_s:.1f} s with it and a silent endpoint")
    assert silent_endpoint.accepted, "the plugin connected"
    trials = _trials(streamed.job_dir)
    assert len(trials) == 4 and None not in trials.values() and result.stats.n_completed_trials == 4
    assert streamed_s - plain_s < ALLOWED_EXTRA_S, (plain_s, streamed_s)
    lines = [r.getMessage() for r in caplog.records]
    # Said once at the start, naming the endpoint and what to set; the end says what was dropped.
    (warning,) = [line for line in lines if "cannot reach harborlight" in line]
    assert f"{url}/v1/traces" in warning and "no answer before the deadline" in warning
    assert "--plugin-kwarg endpoint=" in warning and "OTEL_EXPORTER_OTLP_PROTOCOL=grpc" in warning
    assert plugin.dropped > 0 and plugin.sent == 0
    (summary,) = [line for line in lines if "dropped (" in line]
    assert f"{plugin.dropped} dropped" in summary and f"at the end's {END_TIMEOUT_S} s deadline" in summary


_EXPORTER_VARIABLES = [
    f"OTEL_EXPORTER_OTLP_{signal}{name}"
    for signal in ("", "TRACES_", "LOGS_")
    for name in ("ENDPOINT", "PROTOCOL", "HEADERS", "TIMEOUT", "COMPRESSION", "INSECURE")
]


def test_the_exporters_grpc_variables_stream_the_job_over_grpc(server, tmp_path, unique, monkeypatch, caplog):
    """What the README sets for the agents, given to the plugin too: the job's spans and its log files
    arrive over OTLP/gRPC."""
    for name in _EXPORTER_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", f"http://{server.grpc_endpoint}")
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_PROTOCOL", "grpc")
    job = f"grpc-{unique}"
    with caplog.at_level(logging.WARNING, logger=LOGGER):
        _, result, (plugin,), _ = _run(job_config(tmp_path, job), [PluginConfig(import_path=PLUGIN)])
    server.caught_up()
    row = httpx.get(f"{server.http_url}/api/jobs/{job}", timeout=120)
    assert row.status_code == 200, row.text
    assert (row.json()["n_trials"]["value"], row.json()["raw_solve_rate"]["value"]) == (4, 0.5)
    logs = server.sql(
        "SELECT count() FROM otel_logs WHERE ResourceAttributes['harbor.job.name'] = {job:String}", job=job
    )[0][0]
    assert logs > 0  # the job's and trials' log and lock files, sent at its end
    assert {t.protocol for t in plugin._targets.values()} == {"grpc"}
    assert (plugin.failures, plugin.dropped, plugin.unreachable) == (0, 0, []), caplog.text
    assert not [r for r in caplog.records if "cannot reach" in r.getMessage()]


def test_harbor_run_says_once_that_it_cannot_reach_harborlight(server, tmp_path, unique):
    """`harbor run` with the exporter's variables at harborlight's gRPC port but no protocol (so
    http/protobuf, the spec's default): the job runs, and Harbor's output has one warning naming the
    endpoint and what to set."""
    job = f"cli-unreachable-{unique}"
    task = make_task(tmp_path, "solve-it", "Write the answer.")
    env = {k: v for k, v in harbor_env().items() if k not in _EXPORTER_VARIABLES}
    env["OTEL_EXPORTER_OTLP_ENDPOINT"] = f"http://{server.grpc_endpoint}"
    done = subprocess.run(
        [
            str(Path(sys.executable).with_name("harbor")),
            "run",
            "-p",
            str(task),
            "-o",
            str(tmp_path / "jobs"),
            "--job-name",
            job,
            "-a",
            f"{ScriptedAgent.__module__}:ScriptedAgent",
            "-m",
            "scripted/scripted-model-1",
            "-e",
            f"{HostEnvironment.__module__}:HostEnvironment",
            "--plugin",
            "harborlight",
            "-q",
            "-y",
        ],
        capture_output=True,
        text=True,
        timeout=600,
        env=env,
    )
    output = done.stdout + done.stderr
    assert done.returncode == 0, output[-4000:]
    warnings = [line for line in output.splitlines() if "cannot reach harborlight" in line]
    assert len(warnings) == 1, output[-4000:]
    assert f"http://{server.grpc_endpoint}/v1/traces over OTLP/HTTP" in warnings[0]
    assert "OTEL_EXPORTER_OTLP_PROTOCOL=grpc" in warnings[0]
    assert (tmp_path / "jobs" / job / "result.json").is_file()
