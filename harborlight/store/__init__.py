"""ClickHouse storage: the exporter schema, the client (embedded chDB or a server), OTLP inserts."""

from harborlight.commit.ingest_log import owned_requests, recent_digests, record_digests, stored_digests
from harborlight.commit.otlp_insert import Signal, insert_requests, needs_nested_decoding
from harborlight.store.client import Store, StoreUnavailable, open_client
from harborlight.store.schema import SCHEMA_VERSION, ensure_schema

__all__ = [
    "SCHEMA_VERSION",
    "Signal",
    "Store",
    "StoreUnavailable",
    "ensure_schema",
    "insert_requests",
    "open_client",
    "needs_nested_decoding",
    "owned_requests",
    "recent_digests",
    "record_digests",
    "stored_digests",
]
