"""Importing a Harbor job directory again, from another process or another shell, stores nothing
twice: the importer's requests are the same bytes wherever they are made, which the store
acknowledges once."""

import subprocess
import sys

from tests.importers.harbor_job import write_job


def _import(server, job_dir, env_extra: dict[str, str] | None = None) -> None:
    import os

    done = subprocess.run(
        [sys.executable, "-m", "harborlight.cli.main", "import", "harbor", str(job_dir), "--server", server.http_url],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, **(env_extra or {})},
    )
    assert done.returncode == 0, done.stderr


def _spans(server, job: str) -> int:
    return server.sql(
        "SELECT count() FROM otel_traces WHERE ResourceAttributes['harbor.job.name'] = {job:String}", job=job
    )[0][0]


def test_a_job_imported_by_two_processes_is_stored_once(server, tmp_path, unique):
    """Each process used to stamp its own random service.instance.id (the OpenTelemetry SDK's resource
    detector) on every span, so a second import stored every span again; a shell's
    OTEL_RESOURCE_ATTRIBUTES leaked into the trials' identity the same way."""
    job = f"reimport-{unique}"
    job_dir = write_job(tmp_path, job)
    _import(server, job_dir)
    first = _spans(server, job)
    _import(server, job_dir, {"OTEL_RESOURCE_ATTRIBUTES": "deployment.environment=laptop"})
    assert first > 0 and _spans(server, job) == first
    leaked = server.sql(
        "SELECT count() FROM otel_traces WHERE ResourceAttributes['harbor.job.name'] = {job:String} "
        "AND mapContains(ResourceAttributes, 'deployment.environment')",
        job=job,
    )[0][0]
    assert leaked == 0
