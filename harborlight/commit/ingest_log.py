"""The digests of stored export requests, so a request sent again (an exporter's retry after a lost
acknowledgement, to this process or another, before or after a restart) is stored once; and the claims that
decide which receiver's log stores a request that several receivers hold."""

from collections.abc import Iterable

from harborlight.store.client import Store

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


def owned_requests(store: Store, digests: Iterable[bytes], log_id: str) -> set[bytes]:
    """Which of `digests` the write-ahead log `log_id` is to store: claimed now, or claimed by it before. One
    INSERT per request, since the engine deduplicates whole INSERTs: the claim's token is the digest."""
    wanted = sorted({d.hex() for d in digests})
    for digest in wanted:
        store.client.command(
            "INSERT INTO harborlight_request_claims (Digest, Log) SELECT {d:String}, {l:String}",
            parameters={"d": digest, "l": log_id},
            settings={"insert_deduplication_token": f"claim:{digest}"},
        )
    if not wanted:
        return set()
    rows = store.client.query(
        # The first claim, should a claim older than the deduplication window have let a second one in.
        "SELECT Digest, argMin(Log, (ClaimedAt, Log)) FROM harborlight_request_claims "
        "WHERE Digest IN {d:Array(String)} GROUP BY Digest",
        parameters={"d": wanted},
    ).result_rows
    return {bytes.fromhex(digest) for digest, owner in rows if owner == log_id}
