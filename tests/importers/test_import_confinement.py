"""`harborlight import harbor` reads only regular files inside the job directory, each within a size limit.

The attack: a job directory whose trial.log, lock.json, job.log, agent/trajectory.json, or a whole trial
directory, is a symbolic link to something outside it. The outside file's content became rows of the
tenant; a trial.log linked to /dev/zero ran the import out of memory, and a FIFO hung it. Now each such
file is refused with one line naming it and why, nothing of it is stored, and the rest of the job is
imported (exit status 2: imported, with files left out)."""

import json
import os
import resource
import shutil
import stat
import subprocess
import sys

from tests.importers.harbor_job import trajectory, write_job

SECRET = "outside-secret-{}"


def _limited_memory() -> None:
    """The import runs with at most 3 GiB of address space: reading /dev/zero fails instead of filling the host."""
    resource.setrlimit(resource.RLIMIT_AS, (3 << 30, 3 << 30))


def _import(server, job_dir, *flags: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "harborlight.cli.main",
            "import",
            "harbor",
            str(job_dir),
            "--server",
            server.http_url,
            *flags,
        ],
        capture_output=True,
        text=True,
        timeout=180,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
        preexec_fn=_limited_memory,
    )


def _stored(server, text: str) -> int:
    logs = server.sql(
        "SELECT count() FROM otel_logs WHERE position(Body, {s:String}) > 0 "
        "OR position(toString(LogAttributes), {s:String}) > 0",
        s=text,
    )[0][0]
    spans = server.sql(
        "SELECT count() FROM otel_traces WHERE position(toString(SpanAttributes), {s:String}) > 0 "
        "OR position(toString(Events.Attributes), {s:String}) > 0 "
        "OR position(toString(ResourceAttributes), {s:String}) > 0",
        s=text,
    )[0][0]
    return logs + spans


def test_files_leading_out_fifos_devices_and_oversized_files_are_refused(server, tmp_path, unique):
    secret = SECRET.format(unique)
    job = f"confined-{unique}"
    job_dir = write_job(tmp_path, job)
    trials = sorted(p for p in job_dir.iterdir() if p.is_dir())
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text(f"{secret} in a file outside the job\n")
    hostile_trajectory = trajectory(500, session=f"sess-{unique}-outside").to_json_dict()
    hostile_trajectory["steps"][1]["message"] = f"{secret} in a trajectory outside the job"
    (outside / "trajectory.json").write_text(json.dumps(hostile_trajectory))
    # A whole trial directory outside, linked in: a copy of a real trial carrying the secret.
    shutil.copytree(trials[0], outside / "trial")
    (outside / "trial" / "trial.log").write_text(f"{secret} in a trial directory outside the job\n")

    solved, timeout, subagent, running = (
        next(p for p in trials if f"__{outcome}" in p.name) for outcome in ("solved", "timeout", "subagent", "running")
    )
    (solved / "trial.log").unlink()
    (solved / "trial.log").symlink_to(outside / "secret.txt")
    (timeout / "agent" / "trajectory.json").unlink()
    (timeout / "agent" / "trajectory.json").symlink_to(outside / "trajectory.json")
    (subagent / "trial.log").unlink()
    os.mkfifo(subagent / "trial.log")
    (subagent / "lock.json").write_text(json.dumps({"padding": "x" * (2 << 20), "secret": secret}))
    (job_dir / "lock.json").unlink()
    (job_dir / "lock.json").symlink_to(outside / "secret.txt")
    (job_dir / "job.log").unlink()
    (job_dir / "job.log").symlink_to("/dev/zero")
    (job_dir / "linked-trial").symlink_to(outside / "trial")
    expected = {
        solved / "trial.log": "symbolic link",
        timeout / "agent" / "trajectory.json": "symbolic link",
        subagent / "trial.log": "FIFO",
        subagent / "lock.json": "limit (--import-max-json-mib)",
        job_dir / "lock.json": "symbolic link",
        job_dir / "job.log": "symbolic link to /dev/zero",
        job_dir / "linked-trial": "symbolic link",
    }
    try:  # a device node inside the job directory (/dev/zero's numbers), where the file system allows one
        os.mknod(timeout / "trial.log.dev", stat.S_IFCHR | 0o600, os.makedev(1, 5))
    except PermissionError:
        pass
    else:
        (timeout / "trial.log").unlink()
        (timeout / "trial.log.dev").rename(timeout / "trial.log")
        expected[timeout / "trial.log"] = "a character device, not a regular file"

    done = _import(server, job_dir, "--import-max-json-mib", "1")

    assert "Traceback" not in done.stderr, done.stderr
    assert done.returncode == 2, done.stderr
    refused = [line for line in done.stderr.splitlines() if "refused" in line and "listed above" not in line]
    assert len(refused) == len(expected), done.stderr
    for path, why in expected.items():
        (line,) = [line for line in refused if line.startswith(f"harborlight: {path}: refused: ")]
        assert why in line, line
    assert f"refused {len(expected)} file(s)" in done.stdout, done.stdout

    server.caught_up()
    assert _stored(server, secret) == 0
    imported = server.sql(
        "SELECT DISTINCT ResourceAttributes['harbor.trial.name'] FROM otel_traces "
        "WHERE ResourceAttributes['harbor.job.name'] = {job:String} AND SpanName = 'harbor.trial'",
        job=job,
    )
    assert {name for (name,) in imported} == {solved.name, timeout.name, subagent.name}  # running: no root span yet
    carried = server.sql(
        "SELECT EventName, ResourceAttributes['harbor.trial.name'] FROM otel_logs "
        "WHERE ResourceAttributes['harbor.job.name'] = {job:String}",
        job=job,
    )
    assert ("harbor.trial.log", running.name) in carried and ("harbor.trial.lock", running.name) in carried
    assert not [row for row in carried if row[0] in ("harbor.job.log", "harbor.job.lock")]
    assert ("harbor.trial.log", solved.name) not in carried and ("harbor.trial.lock", subagent.name) not in carried


def test_a_trial_whose_config_leads_out_is_left_out_with_its_line(server, tmp_path, unique):
    job_dir = write_job(tmp_path, f"confined-config-{unique}")
    trial = sorted(p for p in job_dir.iterdir() if p.is_dir())[0]
    outside = tmp_path / "elsewhere.json"
    outside.write_text((trial / "config.json").read_text())
    (trial / "config.json").unlink()
    (trial / "config.json").symlink_to(outside)

    done = _import(server, job_dir)

    assert done.returncode == 2, done.stderr
    assert (
        f"harborlight: {trial / 'config.json'}: refused: a symbolic link to {outside}, outside {job_dir} "
        f"(trial {trial.name} not imported)"
    ) in done.stderr.splitlines()
    assert "imported 3 trial(s)" in done.stdout, done.stdout


def test_a_link_inside_the_job_directory_is_read(server, tmp_path, unique):
    """Containment, not a ban on links: a trial.log linked to another file of the same job is read."""
    job_dir = write_job(tmp_path, f"confined-inside-{unique}")
    trial = sorted(p for p in job_dir.iterdir() if p.is_dir())[0]
    (job_dir / "shared.log").write_text(f"shared-{unique}\n")
    (trial / "trial.log").unlink()
    (trial / "trial.log").symlink_to(job_dir / "shared.log")

    done = _import(server, job_dir)

    assert done.returncode == 0, done.stderr
    server.caught_up()
    assert _stored(server, f"shared-{unique}") == 1
