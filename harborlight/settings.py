"""Every setting once: name, default, help. Feeds the CLI flags, HARBORLIGHT_* variables and the docs."""

import os
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from pathlib import Path


def _setting(default: object, help: str) -> object:
    return field(default=default, metadata={"help": help})


@dataclass(frozen=True)
class Settings:
    data_dir: Path = _setting(Path("harborlight-data"), "directory of the embedded ClickHouse (chDB) store")
    clickhouse_url: str | None = _setting(
        None, "use a ClickHouse server instead of the embedded store, e.g. http://user:pass@host:8123/default"
    )
    cluster: str | None = _setting(
        None,
        "the ClickHouse cluster --clickhouse-url is a server of: its tables are the cluster form (harborlight "
        "schema --cluster NAME apply makes them), which serve checks, creating none itself",
    )
    host: str = _setting("127.0.0.1", "address to listen on (0.0.0.0 accepts agents from other hosts)")
    grpc_port: int = _setting(4317, "OTLP/gRPC port")
    http_port: int = _setting(4318, "OTLP/HTTP and API port")
    retention_days: int | None = _setting(None, "drop telemetry older than this many days (ClickHouse TTL)")
    max_request_bytes: int = _setting(16 * 1024 * 1024, "largest accepted export request, after decompression")
    max_batch_items: int | None = _setting(
        None,
        "most items committed in one INSERT (a commit's memory); unset: 12 per MiB of --memory-limit-mib, "
        "at most 100,000",
    )
    wal_dir: Path | None = _setting(None, "directory of the write-ahead log; unset: <data-dir>/wal")
    wal_fsync: str = _setting(
        "100",
        "when the write-ahead log reaches the disk: always (before each acknowledgement), every this many "
        "ms, or never (the kernel's writeback); what a power loss can take is what no fsync covered yet",
    )
    wal_max_mib: int = _setting(
        1024, "most the write-ahead log holds for the store (during an outage, say); past it ingest refuses, retryably"
    )
    max_commit_lag_seconds: int = _setting(
        10,
        "/healthz answers 503 when an acknowledged request waits longer than this to be stored, and a read "
        "waits at most this long for the requests acknowledged before it",
    )
    max_items_per_request: int = _setting(50_000, "most spans / log records / data points in one export request")
    max_attributes_per_item: int = _setting(512, "attributes kept per item; the rest are dropped and counted")
    max_attribute_value_bytes: int = _setting(
        256 * 1024, "longer attribute values (and log bodies) are cut to this and the item flagged"
    )
    max_expanded_request_bytes: int | None = _setting(
        None,
        "most bytes one request may store once every item carries its resource and scope, as the tables hold "
        "them (a commit's memory is 5-8 times that); over it: 413 / INVALID_ARGUMENT; unset: 1/24 of "
        "--memory-limit-mib",
    )
    memory_limit_mib: int = _setting(
        2048, "resident memory the process stays under: ingest refuses (retryably) near it"
    )
    read_timeout_seconds: int = _setting(
        30, "an HTTP request's headers must arrive within this, then its body within as long again; else closed"
    )
    max_connections: int = _setting(512, "open connections per HTTP server; past it a new one gets 503 and is closed")
    auth_token: str | None = _setting(None, "require 'Authorization: Bearer <token>' on ingest and the API")
    tokens_file: Path | None = _setting(
        None, "file of 'token tenant' lines: each token may write and read only its tenant's data"
    )
    clickhouse_http_port: int | None = _setting(
        None, "serve a read-only ClickHouse-compatible HTTP interface (for Grafana) on this port; off when unset"
    )
    clickhouse_tcp_port: int | None = _setting(
        None,
        "serve ClickHouse's native TCP protocol (Grafana's default, clickhouse-client, clickhouse-driver) on this "
        "port, read-only like the HTTP interface; off when unset (9000 is ClickHouse's own port)",
    )
    clickhouse_http_query_seconds: int = _setting(
        300, "longest a statement on the ClickHouse HTTP interface runs (its max_execution_time; callers may lower it)"
    )
    live_buffer_kib: int = _setting(
        256,
        "most an /api/live stream may fall behind its reader; past it the stream is ended with a 'dropped' "
        "event saying so (reconnect with history=true to catch up)",
    )
    live_streams_per_tenant: int = _setting(
        64,
        "most /api/live streams one tenant (or, without tenants, everyone) holds open; past it: 429",
    )
    import_max_json_mib: int = _setting(
        64, "import harbor: largest config.json, result.json, lock.json or verifier/report.json read; larger: refused"
    )
    import_max_trajectory_mib: int = _setting(256, "import harbor: largest agent/trajectory.json read; larger: refused")
    import_max_log_mib: int = _setting(256, "import harbor: largest job.log or trial.log read; larger: refused")

    @property
    def wal_directory(self) -> Path:
        return self.wal_dir or self.data_dir / "wal"

    @property
    def batch_items(self) -> int:
        """Bigger commits ingest faster (an INSERT's cost is mostly fixed) and need more memory: in
        bench/ingest, 25,000-span commits peaked ~220 MiB above 10,000-span ones."""
        return self.max_batch_items or min(self.memory_limit_mib * 12, 100_000)

    @property
    def expanded_request_bytes(self) -> int:
        """Measured: a commit whose rows held 100 MiB of repeated resource attributes took ~700 MiB of the
        engine's memory, which gets half of --memory-limit-mib."""
        return self.max_expanded_request_bytes or (self.memory_limit_mib << 20) // 24

    @classmethod
    def resolve(cls, given: Mapping[str, object], environ: Mapping[str, str] = os.environ) -> "Settings":
        """Flags win over HARBORLIGHT_* variables, which win over defaults."""
        values: dict[str, object] = {}
        for f in fields(cls):
            if given.get(f.name) is not None:
                values[f.name] = given[f.name]
            elif env_name(f.name) in environ:
                values[f.name] = _coerce(f.name, f.type, environ[env_name(f.name)])
        return cls(**values)


def env_name(name: str) -> str:
    return "HARBORLIGHT_" + name.upper()


def flag_name(name: str) -> str:
    return "--" + name.replace("_", "-")


def _coerce(name: str, kind: object, value: str) -> object:
    if "Path" in str(kind):
        return Path(value)
    if "int" in str(kind):
        try:
            return int(value)
        except ValueError:
            raise ValueError(f"{env_name(name)} must be a whole number, got {value!r}") from None
    return value
