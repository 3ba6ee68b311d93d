"""A real Harbor job (Harbor's Job API: its queue, trial hooks, verifier, result and lock files) runs
with the harborlight plugin against a running harborlight: the trials are watched while they run,
and the job the plugin streamed is the job `harborlight import harbor` makes of the same directory.

The trials run on the host (tests/harbor_live/host_environment.py) with a scripted agent
(tests/harbor_live/scripted_agent.py); two tasks, one solved and one where the agent crashes, two
attempts each."""

import asyncio
import io
import os
import subprocess
import sys
import tarfile
import time
from pathlib import Path

import httpx
import pytest
from harbor.cli.job_plugins import PluginConfig
from harbor.models.job.result import JobResult
from harbor.trial.hooks import TrialEvent
from harbor.upload.uploader import _create_trial_archive, _load_job_from_disk, _read_trial_lock_for_upload

from harborlight.cli.watch_command import TrialBoard
from tests.harbor_live.harbor_run import job_config
from tests.importers.exported import resume_plan, validate_job, view
from tests.live.test_live import SseClient
from tests.support.servers import SubprocessServer

PLUGIN = "harborlight.harbor.plugin:HarborlightPlugin"


def _cli(*args: str) -> str:
    done = subprocess.run(
        [sys.executable, "-m", "harborlight.cli.main", *args], capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def _get(server, path: str):
    reply = httpx.get(f"{server.http_url}{path}", timeout=60)
    assert reply.status_code == 200, reply.text
    return reply.json()


def _job_row(server, job: str) -> dict:
    return _get(server, f"/api/jobs/{job}")


def _trial_rows(server, job: str) -> list:
    return _get(server, f"/api/jobs/{job}/trials?limit=100")["items"]


def _stored(server, job: str) -> tuple[int, int]:
    """(spans, log records) stored for the job."""
    spans = server.sql(
        "SELECT count() FROM otel_traces WHERE ResourceAttributes['harbor.job.name'] = {job:String}", job=job
    )[0][0]
    logs = server.sql(
        "SELECT count() FROM otel_logs WHERE ResourceAttributes['harbor.job.name'] = {job:String}", job=job
    )[0][0]
    return spans, logs


def _until(condition, seconds: float = 60) -> bool:
    deadline = time.monotonic() + seconds
    while not condition() and time.monotonic() < deadline:
        time.sleep(0.05)
    return condition()


@pytest.fixture(scope="module")
def streamed(server, tmp_path_factory):
    """The job run with the plugin, the live events a watcher saw, and what each trial's agent-end hook
    found already shown (the setup phases streamed while the trial was still running)."""
    root = tmp_path_factory.mktemp("harbor-live")
    job = f"live-{root.name[-8:]}"
    watcher = SseClient(f"{server.http_url}/api/live?job={job}", 10_000)
    shown_before_end: dict[str, list[str]] = {}
    running_exports: list[httpx.Response] = []

    def phases_of(trial: str) -> list[str]:
        return [data["data"]["phase"] for _, kind, data in watcher.events if kind == "phase" and data["trial"] == trial]

    async def at_agent_end(event) -> None:  # the trial is still running: its verifier has not started
        trial = event.trial_name
        await asyncio.to_thread(_until, lambda: "agent_setup" in phases_of(trial))
        shown_before_end[trial] = phases_of(trial)
        if not running_exports:  # the job as harborlight exports it while this trial runs
            running_exports.append(
                await asyncio.to_thread(httpx.get, f"{server.http_url}/api/jobs/{job}/export", timeout=120)
            )

    async def run():
        from harbor.cli import job_plugins
        from harbor.job import Job

        job_object = await Job.create(job_config(root, job))
        job_object.add_hook(TrialEvent.AGENT_END, at_agent_end)
        plugins = await job_plugins.attach_job_plugins(
            job_object, [PluginConfig(import_path=PLUGIN, kwargs={"endpoint": server.http_url})]
        )
        result = await job_object.run()
        await job_plugins.finalize_job_plugins(plugins, result)
        return job_object, result

    job_object, result = asyncio.run(run())
    trials = [p.name for p in job_object.job_dir.iterdir() if p.is_dir()]
    _until(lambda: sum(kind == "trial_finished" for _, kind, _ in watcher.events) >= len(trials))
    watcher.close()
    return {
        "job": job,
        "dir": job_object.job_dir,
        "result": result,
        "events": watcher.events,
        "trials": trials,
        "shown_before_end": shown_before_end,
        "root": root,
        "running_export": running_exports[0],
    }


def test_each_trial_is_watched_starting_its_phases_and_its_calls(streamed):
    events = [(kind, data) for _, kind, data in streamed["events"]]
    assert len(streamed["trials"]) == 4
    for trial in streamed["trials"]:
        kinds = [kind for kind, data in events if data["trial"] == trial]
        assert kinds[0] == "trial_started" and kinds[-1] == "trial_finished"
        phases = [d["data"]["phase"] for k, d in events if k == "phase" and d["trial"] == trial]
        assert phases[:2] == ["environment_setup", "agent_setup"]
        assert "verifier" in phases
        if trial.startswith("solve-it"):
            assert "model_call" in kinds and "tool_call" in kinds
    # The setup phases were shown while each trial that reached its agent still ran.
    assert sorted(streamed["shown_before_end"]) == sorted(streamed["trials"])
    assert all(shown[:2] == ["environment_setup", "agent_setup"] for shown in streamed["shown_before_end"].values())


def test_harborlight_watch_tables_the_running_job(server, streamed):
    board = TrialBoard(streamed["job"])
    for _, kind, data in streamed["events"]:
        board.apply({**data, "type": kind})
    lines = board.trials
    assert sorted(lines) == sorted(streamed["trials"])
    solved = [line for name, line in lines.items() if name.startswith("solve-it")]
    assert all(
        (line.model_calls, line.tool_calls, line.input_tokens, line.phase) == (1, 1, 1200, "finished")
        for line in solved
    )
    crashed = {name: line for name, line in lines.items() if name.startswith("crash-it")}
    assert crashed
    for name, line in crashed.items():  # a trial's end tells its stored row's outcome
        row = httpx.get(f"{server.http_url}/api/trials/{name}", params={"job": streamed["job"]}, timeout=120).json()
        assert line.outcome == row["outcome"]["value"] != "resolved", name


def test_the_streamed_job_is_the_imported_job(server, streamed, tmp_path):
    """The job row harborlight built from the plugin's stream equals the row `harborlight import harbor`
    gives for the same directory into a fresh store: counts, outcomes, rewards, tokens, cost, timings."""
    job = streamed["job"]
    live, live_trials = _job_row(server, job), _trial_rows(server, job)
    fresh = tmp_path / "fresh"
    _cli("import", "harbor", str(streamed["dir"]), "--data-dir", str(fresh))
    other = SubprocessServer(fresh).start()
    try:
        imported, imported_trials = _job_row(other, job), _trial_rows(other, job)
    finally:
        other.stop()
    assert live == imported
    assert live_trials == imported_trials and len(live_trials) == 4
    assert live["n_trials"]["value"] == 4 and live["raw_solve_rate"]["value"] == 0.5
    assert live["total_input_tokens"]["value"] == 2 * 1200


def test_importing_the_streamed_job_changes_no_count(server, streamed):
    before, row = _stored(server, streamed["job"]), _job_row(server, streamed["job"])
    assert before[0] > 0 and before[1] > 0  # spans, and the job's and trials' log and lock files
    _cli("import", "harbor", str(streamed["dir"]), "--server", server.http_url)
    assert _stored(server, streamed["job"]) == before
    assert _job_row(server, streamed["job"]) == row


def test_the_job_directory_harbor_wrote_holds_what_the_plugin_sent(streamed):
    """Harbor's own records of the run agree: its job result counts the trials the plugin streamed."""
    stats = streamed["result"].stats
    assert stats.n_completed_trials == 4 and stats.n_errored_trials == 2
    assert (streamed["dir"] / "lock.json").is_file()


def _harbor(*args: str) -> subprocess.CompletedProcess:
    harbor = Path(sys.executable).with_name("harbor")
    return subprocess.run(
        [str(harbor), *args],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "LITELLM_LOCAL_MODEL_COST_MAP": "True"},
    )


def _unordered(stats: dict) -> dict:
    """Stats with their lists of trial names as sets: Harbor lists them in its trials' planned order,
    which no file records (the export lists them by name)."""
    for group in stats["evals"].values():
        for table in ("reward_stats", "exception_stats"):
            group[table] = {
                k: ({v: set(names) for v, names in by.items()} if table == "reward_stats" else set(by))
                for k, by in group[table].items()
            }
    return stats


def _harbors_readers_accept(job_dir: Path) -> dict:
    """`harbor view`'s scanner, `harbor job resume`'s reads and plan, the uploader's loader (and its
    lock and archive), and `harbor traces export`: each accepts the directory. Returns the results."""
    results = validate_job(job_dir)
    view(job_dir.parent, job_dir.name)
    resumed = resume_plan(job_dir)
    job_result, _, trial_results, _ = _load_job_from_disk(job_dir)
    for trial in trial_results:
        trial_dir = job_dir / trial.trial_name
        _read_trial_lock_for_upload(trial_dir)
        assert _create_trial_archive(trial_dir)
    out = job_dir.parent / f"{job_dir.name}-otel"
    done = _harbor("traces", "export", "--format", "otel", "--output", str(out), "--path", str(job_dir))
    assert done.returncode == 0 and "Unable to determine" not in done.stdout + done.stderr, done.stdout + done.stderr
    return {"results": results, "job_result": job_result, "remaining": resumed._remaining_trial_configs}


def test_harbors_readers_accept_the_streamed_job_exported_finished(server, streamed, tmp_path):
    _cli("export-job", streamed["job"], "--out", str(tmp_path), "--server", server.http_url)
    read = _harbors_readers_accept(tmp_path / streamed["job"])
    assert sorted(read["results"]) == sorted(streamed["trials"]) and read["remaining"] == []
    # The job's stats are what Harbor itself wrote for the run.
    harbors = JobResult.model_validate_json((streamed["dir"] / "result.json").read_text()).stats
    exported = read["job_result"].stats
    assert _unordered(exported.model_dump(mode="json")) == _unordered(harbors.model_dump(mode="json"))
    for trial in streamed["trials"]:  # Harbor's own lock of each trial, carried
        assert (tmp_path / streamed["job"] / trial / "lock.json").read_text() == (
            streamed["dir"] / trial / "lock.json"
        ).read_text()


def test_harbors_readers_accept_the_job_exported_while_it_ran(streamed, tmp_path):
    reply = streamed["running_export"]
    assert reply.status_code == 200, reply.text
    with tarfile.open(fileobj=io.BytesIO(reply.content)) as tar:
        tar.extractall(tmp_path, filter="data")
    job_dir = tmp_path / streamed["job"]
    running = [p.name for p in job_dir.iterdir() if p.is_dir() and not (p / "result.json").exists()]
    assert running, "a trial was running when the job was exported"
    read = _harbors_readers_accept(job_dir)
    # resume would run every planned trial that had not finished (Harbor names the ones it runs anew)
    assert len(read["remaining"]) == 4 - len(read["results"])
