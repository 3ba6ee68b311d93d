"""Harbor's own files that telemetry cannot rebuild (`job.log`, `trial.log`, `lock.json`), carried
verbatim through import and export.

The importer sends each file as OTLP log records of its own scope and event name (no agent event:
they stay in otel_logs), the text split into parts of at most CHUNK characters, stamped with the
file's last write. The exporter joins the parts of the latest copy and writes them back as they
were; a job or trial without a carried log gets one built from its telemetry, and one without a
carried lock gets none (its task digests are not in the telemetry).
"""

from dataclasses import dataclass, field

from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import ExportLogsServiceRequest
from opentelemetry.proto.common.v1.common_pb2 import AnyValue, InstrumentationScope, KeyValue
from opentelemetry.proto.logs.v1.logs_pb2 import LogRecord, ResourceLogs, ScopeLogs
from opentelemetry.proto.resource.v1.resource_pb2 import Resource

SCOPE = "harborlight.harbor_import"
JOB_LOG = "harbor.job.log"
TRIAL_LOG = "harbor.trial.log"
JOB_LOCK = "harbor.job.lock"
TRIAL_LOCK = "harbor.trial.lock"
CARRIED = (JOB_LOG, TRIAL_LOG, JOB_LOCK, TRIAL_LOCK)
PART = "harbor.log.part"
PARTS = "harbor.log.parts"
CHUNK = 256 * 1024


@dataclass(frozen=True)
class CarriedLogs:
    """The files the Harbor importer carried for one job: None (or no entry) where there was none."""

    job: str | None = None
    trials: dict[str, str] = field(default_factory=dict)
    job_lock: str | None = None
    trial_locks: dict[str, str] = field(default_factory=dict)


def _value(value: str | int) -> AnyValue:
    return AnyValue(int_value=value) if isinstance(value, int) else AnyValue(string_value=str(value))


def _attributes(values: dict[str, str | int]) -> list[KeyValue]:
    return [KeyValue(key=k, value=_value(v)) for k, v in values.items()]


def log_request(resource: dict[str, str | int], event_name: str, text: str, written_ns: int) -> bytes:
    """ExportLogsServiceRequest bytes for one log file (an empty file is one empty record)."""
    parts = [text[i : i + CHUNK] for i in range(0, len(text), CHUNK)] or [""]
    records = [
        LogRecord(
            time_unix_nano=written_ns,
            observed_time_unix_nano=written_ns,
            severity_number=9,
            severity_text="INFO",
            event_name=event_name,
            body=AnyValue(string_value=part),
            attributes=_attributes({PART: index, PARTS: len(parts)}),
        )
        for index, part in enumerate(parts)
    ]
    request = ExportLogsServiceRequest(
        resource_logs=[
            ResourceLogs(
                resource=Resource(attributes=_attributes(resource)),
                scope_logs=[ScopeLogs(scope=InstrumentationScope(name=SCOPE), log_records=records)],
            )
        ]
    )
    return request.SerializeToString()


def joined(rows: list[tuple[int, int, int, str]]) -> str | None:
    """One file's text from (written_ns, part, parts, body) rows: the latest complete copy."""
    copies: dict[int, dict[int, tuple[int, str]]] = {}
    for written, part, parts, body in rows:
        copies.setdefault(written, {})[part] = (parts, body)
    for written in sorted(copies, reverse=True):
        found = copies[written]
        parts = next(iter(found.values()))[0]
        if sorted(found) == list(range(parts)):
            return "".join(found[i][1] for i in range(parts))
    return None
