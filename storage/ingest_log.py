"""The digests of stored export requests, so a request sent again (an exporter's retry after a lost
acknowledgement, to this process or another, before or after a restart) is stored once."""

from collections.abc import Iterable

from storage.client import Store

RECENT_HOURS = 24


def record_digests(store: Store, rows: Iterable[tuple[bytes, str, int]]) -> None:
    data = [(digest.hex(), signal, items) for digest, signal, items in rows]
    if data:
        # A bound parameter, not clickhouse-connect's insert(): that one imports pandas on first use,
        # ~0.4 s added to the first commit's acknowledgement.
        store.client.command(
            "INSERT INTO harborlight_ingested_requests (Digest, Signal, Items) "
            "SELECT r.1, r.2, r.3 FROM (SELECT arrayJoin({rows:Array(Tuple(String, String, UInt32))}) AS r)",
            parameters={"rows": data},
        )


def recent_digests(store: Store, limit: int) -> list[bytes]:
    rows = store.client.query(
        "SELECT Digest FROM harborlight_ingested_requests WHERE ReceivedAt > now() - toIntervalHour({h:UInt32}) "
        "ORDER BY ReceivedAt DESC LIMIT {n:UInt32}",
        parameters={"h": RECENT_HOURS, "n": limit},
    ).result_rows
    return [bytes.fromhex(r[0]) for r in reversed(rows)]


def stored_digests(store: Store, digests: Iterable[bytes]) -> set[bytes]:
    """Which of `digests` the store holds: their requests are stored whole."""
    wanted = sorted({d.hex() for d in digests})
    if not wanted:
        return set()
    rows = store.client.query(
        "SELECT DISTINCT Digest FROM harborlight_ingested_requests WHERE Digest IN {d:Array(String)}",
        parameters={"d": wanted},
    ).result_rows
    return {bytes.fromhex(r[0]) for r in rows}
