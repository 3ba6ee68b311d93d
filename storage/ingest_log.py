"""The digests of committed export requests, so a retried request is stored once across restarts."""

from collections.abc import Iterable

from storage.client import Store

RECENT_HOURS = 24


def record_digests(store: Store, rows: Iterable[tuple[bytes, str, int]]) -> None:
    data = [[digest.hex(), signal, items] for digest, signal, items in rows]
    if data:
        store.client.insert("harborlight_ingested_requests", data, column_names=["Digest", "Signal", "Items"])


def recent_digests(store: Store, limit: int) -> list[bytes]:
    rows = store.client.query(
        "SELECT Digest FROM harborlight_ingested_requests WHERE ReceivedAt > now() - toIntervalHour({h:UInt32}) "
        "ORDER BY ReceivedAt DESC LIMIT {n:UInt32}",
        parameters={"h": RECENT_HOURS, "n": limit},
    ).result_rows
    return [bytes.fromhex(r[0]) for r in reversed(rows)]
