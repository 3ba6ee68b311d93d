"""The import and export operations for a running server, on its store and its receiver: what the
composition root puts on app.state for the API routes (harborlight/api/routes/transfer_routes.py)."""

from dataclasses import asdict, dataclass

from harborlight.ingest.receiver import Receiver
from harborlight.store import Store
from harborlight.summaries.refresh import refresh
from harborlight.transfer.atif import to_json
from harborlight.transfer.errors import UnknownTrial
from harborlight.transfer.job_dir_write import tarball
from harborlight.transfer.job_files import job_files
from harborlight.transfer.otlp_import import NamedData, import_otlp
from harborlight.transfer.sink import ReceiverSink
from harborlight.transfer.store_read import read_job, read_logs, read_trial
from harborlight.transfer.trial_build import build_trial


def export_files(
    store: Store, job: str, jobs_dir: str, tenant: str = "", snapshot: bool = False, resolve: bool = False
) -> dict[str, bytes]:
    """resolve: the store is read alone (the CLI's --data-dir), no keeper resolved its last records: resolve them
    first, as a server's keeper would have."""
    if resolve:
        refresh(store.client, tenant)
    return job_files(job, read_job(store, job, tenant), jobs_dir, snapshot, read_logs(store, job, tenant))


@dataclass(frozen=True)
class Transfers:
    store: Store
    receiver: Receiver | None  # None: a read-only store (the CLI on --data-dir), nothing to import through
    max_file_bytes: int | None = None  # what an uploaded file may inflate to

    def export_tarball(self, job: str, jobs_dir: str, tenant: str, snapshot: bool) -> bytes:
        """Blocking: run it in a worker thread."""
        return tarball(job, export_files(self.store, job, jobs_dir, tenant, snapshot))

    async def import_otlp(self, name: str, data: bytes, tenant: str) -> dict:
        if self.receiver is None:
            raise ValueError("this store takes no imports: it is read directly, not served")
        tally = await import_otlp(
            [NamedData(name, data)], ReceiverSink(self.receiver, tenant), max_bytes=self.max_file_bytes
        )
        return {**asdict(tally), "reasons": dict(tally.reasons)}

    def trajectory(self, trial: str, job: str, tenant: str) -> str:
        """The trial's ATIF trajectory as its export's agent/trajectory.json holds it (the same build).
        Blocking: run it in a worker thread."""
        job_name, telemetry = read_trial(self.store, trial, job, tenant)
        trajectory = build_trial(telemetry, job_name, "jobs", None).trajectory
        if trajectory is None:
            raise UnknownTrial(f"trial {trial!r} has no model calls, messages or tool calls to make a trajectory of")
        return to_json(trajectory)
