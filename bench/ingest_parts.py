"""Where an ingested span's time goes, part by part: one process, one run, one batch size.

bench/ingest.py measures the whole path against a direct insert; this splits the path, to show which
part a faster server would have to change:
- receive: the Python work the server does per request before queueing it (the per-item checks,
  the digest, the nested-value screen), on one thread;
- decode: the engine decoding the OTLP bytes into otel_traces rows that are written nowhere (Null);
- the decode path (harborlight.commit.otlp_insert.insert_requests, as the server commits) against clickhouse-connect's
  insert_arrow of the same rows (built beforehand, not timed), into the exporter's tables alone and
  with the agent views;
- the decode path with two INSERTs running at once on two connections (half the batches each).
Figures are wall-clock µs per span (lower is better) and spans/s; ratios compare parts measured back
to back in the same round, and the medians of the rounds are printed.

Usage: python bench/ingest_parts.py [--spans 200000] [--batch 25000] [--rounds 3]
"""

import argparse
import hashlib
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from statistics import median

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from bench.ingest import (  # noqa: E402
    SPANS_PER_TRACE,
    TRACES_PER_REQUEST,
    arrow_rows,
    batches,
    build_requests,
    direct_insert_rate,
    fresh_store,
)
from harborlight.agent.sources import CONTEXTS as AGENT_VIEWS  # noqa: E402
from harborlight.commit.otlp_insert import insert_requests  # noqa: E402
from harborlight.ingest.limits import Limits  # noqa: E402
from harborlight.ingest.signals import SIGNALS  # noqa: E402
from harborlight.ingest.validate import check_request  # noqa: E402
from harborlight.store import Signal, ensure_schema, open_client  # noqa: E402

SPANS_PER_REQUEST = SPANS_PER_TRACE * TRACES_PER_REQUEST


def receive_us_per_span(requests: list[bytes]) -> float:
    spec, limits = SIGNALS[Signal.traces], Limits()
    started = time.perf_counter()
    for body in requests:
        check_request(spec, body, limits)  # the per-item checks and limits, the nested-value screen
        hashlib.blake2b(body, digest_size=16).digest()
    return (time.perf_counter() - started) * 1e6 / (len(requests) * SPANS_PER_REQUEST)


def _timed(work: Callable[[], None], n_spans: int) -> float:
    started = time.perf_counter()
    work()
    return n_spans / (time.perf_counter() - started)


def decode_path_rate(groups: list[list[bytes]], agent_views: bool, connections: int = 1) -> float:
    """spans/s of harborlight.commit.otlp_insert.insert_requests over `groups` (one INSERT each), on
    `connections` at once."""
    n_spans = sum(len(g) for g in groups) * SPANS_PER_REQUEST
    with tempfile.TemporaryDirectory(ignore_cleanup_errors=True) as tmp:
        store = fresh_store(Path(tmp) / "store", agent_views)
        stores = [store] + [store.another_connection() for _ in range(connections - 1)]

        def commit(worker: int) -> None:
            for i in range(worker, len(groups), connections):
                insert_requests(stores[worker], Signal.traces, groups[i], nested=False, retry_token=f"batch-{i}")

        def run() -> None:
            threads = [threading.Thread(target=commit, args=(w,)) for w in range(connections)]
            for t in threads:
                t.start()
            for t in threads:
                t.join()

        rate = _timed(run, n_spans)
        stored = store.client.command("SELECT count() FROM otel_traces")
        for s in stores:
            s.client.close()
    if stored != n_spans:
        raise SystemExit(f"the decode path stored {stored} of {n_spans} spans")
    return rate


def decode_only_rate(groups: list[list[bytes]]) -> float:
    """spans/s of decoding alone: otel_traces is a Null table here, so nothing is written."""
    n_spans = sum(len(g) for g in groups) * SPANS_PER_REQUEST
    with tempfile.TemporaryDirectory(ignore_cleanup_errors=True) as tmp:
        store = open_client(Path(tmp) / "store")
        ensure_schema(store.client)
        for view in (*[v.mv for v in AGENT_VIEWS], "otel_traces_trace_id_ts_mv"):
            store.client.command(f"DROP VIEW IF EXISTS {view}")
        store.client.command("CREATE TABLE otel_traces_null AS otel_traces ENGINE = Null")
        store.client.command("EXCHANGE TABLES otel_traces AND otel_traces_null")
        rate = _timed(lambda: [insert_requests(store, Signal.traces, g, nested=False) for g in groups], n_spans)
        store.client.close()
    return rate


def us(rate: float) -> float:
    return 1e6 / rate


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--spans", type=int, default=200_000)
    parser.add_argument("--batch", type=int, default=25_000, help="spans per INSERT, for every part")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()

    requests = build_requests(args.spans)
    per_group = max(1, args.batch // SPANS_PER_REQUEST)
    groups = [requests[i : i + per_group] for i in range(0, len(requests), per_group)]
    tables = batches(arrow_rows(requests), per_group * SPANS_PER_REQUEST)
    parts: dict[str, list[float]] = {}

    def record(name: str, value: float) -> float:
        parts.setdefault(name, []).append(value)
        return value

    for r in range(args.rounds):
        record("receive (Python, µs/span)", receive_us_per_span(requests))
        record("decode only, Null table", decode_only_rate(groups))
        for views, label in ((False, "exporter tables"), (True, "with agent views")):
            d = record(f"decode path, {label}", decode_path_rate(groups, views))
            a = record(f"insert_arrow, {label}", direct_insert_rate(tables, views))
            two = record(f"decode path x2 connections, {label}", decode_path_rate(groups, views, connections=2))
            record(f"ratio decode / arrow, {label}", d / a)
            record(f"ratio x2 / x1, {label}", two / d)
        print(
            f"round {r + 1}: "
            + ", ".join(
                f"{k} {v[-1]:,.2f}" if "ratio" in k or "µs" in k else f"{k} {v[-1]:,.0f}" for k, v in parts.items()
            ),
            flush=True,
        )

    print(
        f"\n{len(requests) * SPANS_PER_REQUEST:,} spans, {per_group * SPANS_PER_REQUEST:,} per INSERT, "
        f"{args.rounds} rounds (medians):"
    )
    for name, values in parts.items():
        m = median(values)
        if "ratio" in name:
            print(f"  {name:48s} {m:6.2f}   ({', '.join(f'{v:.2f}' for v in values)})")
        elif "µs" in name:
            print(f"  {name:48s} {m:6.2f}")
        else:
            print(f"  {name:48s} {m:9,.0f} spans/s  {us(m):5.1f} µs/span")


if __name__ == "__main__":
    main()
