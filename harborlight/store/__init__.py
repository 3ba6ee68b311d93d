"""ClickHouse storage: the exporter schema, the client (embedded chDB or a server), the OTLP signals.

The write path's inserts and the dedup log live in harborlight/commit/ (otlp_insert, ingest_log), which
imports this package: nothing here imports commit/."""

from harborlight.store.client import Store, StoreUnavailable, open_client
from harborlight.store.schema import SCHEMA_VERSION, ensure_schema
from harborlight.store.signal import Signal

__all__ = [
    "SCHEMA_VERSION",
    "Signal",
    "Store",
    "StoreUnavailable",
    "ensure_schema",
    "open_client",
]
