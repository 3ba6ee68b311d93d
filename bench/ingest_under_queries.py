"""Ingest acknowledgements while the SQL interface runs long queries, measured in one run.

Starts `harborlight serve --clickhouse-http-port` (a subprocess, its own embedded store), keeps one
gRPC exporter sending 50-span requests back to back (each acknowledged once in the write-ahead log, which
the committer drains into the store meanwhile), and meanwhile runs `--queries` concurrent
statements through the SQL interface: `sleep` (`SELECT sum(sleepEachRow(1)) FROM numbers(N)`, the
engine idle) or `cpu` (a hash over many rows, every core busy). Prints, for a quiet window before the
queries (as long as `--quiet-seconds`) and for the window while they run: the acknowledgements, the median
gap between two, how many gaps were over 1 s, and the longest; and how long the queries took.

Usage: python bench/ingest_under_queries.py [--queries 6] [--kind sleep|cpu] [--seconds 20] [--quiet-seconds 40]
"""

import argparse
import itertools
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

import grpc
import httpx

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from tests.support.otlp import traces_request  # noqa: E402
from tests.support.servers import SubprocessServer, free_port  # noqa: E402

METHOD = "/opentelemetry.proto.collector.trace.v1.TraceService/Export"
STATEMENTS = {
    "sleep": "SELECT sum(sleepEachRow(1)) FROM numbers({seconds})",
    "cpu": "SELECT count() FROM numbers(10000000000) WHERE sipHash64(number) % 7 = 3",
}


def acknowledgements(endpoint: str, stop: threading.Event, stamps: list[float]) -> None:
    with grpc.insecure_channel(endpoint) as channel:
        export = channel.unary_unary(METHOD)
        n = 0
        while not stop.is_set():
            n += 1
            export(traces_request("under-queries", 50, job=f"uq-{n}").SerializeToString(), timeout=120)
            stamps.append(time.monotonic())


def gaps(stamps: list[float], start: float, end: float) -> str:
    inside = [start] + [s for s in stamps if start <= s <= end] + [end]
    between = sorted(b - a for a, b in itertools.pairwise(inside))
    return (
        f"{len(inside) - 2} acknowledgements, median gap {statistics.median(between):.2f} s, "
        f"{sum(g > 1 for g in between)} gaps over 1 s, longest {between[-1]:.2f} s"
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--queries", type=int, default=6)
    parser.add_argument("--kind", choices=sorted(STATEMENTS), default="sleep")
    parser.add_argument(
        "--seconds", type=int, default=20, help="how long the queries run (cpu: cut off by max_execution_time)"
    )
    parser.add_argument("--quiet-seconds", type=float, default=40, help="the window before the queries")
    args = parser.parse_args()
    sql_port = free_port()
    server = SubprocessServer(Path(tempfile.mkdtemp()) / "store", ("--clickhouse-http-port", str(sql_port))).start()
    stop, stamps = threading.Event(), []
    sender = threading.Thread(target=acknowledgements, args=(server.grpc_endpoint, stop, stamps))
    try:
        sender.start()
        time.sleep(5)  # warm
        quiet_start = time.monotonic()
        time.sleep(args.quiet_seconds)
        quiet_end = time.monotonic()
        took: list[float] = []
        params = {
            "function_sleep_max_microseconds_per_block": "0",
            "max_block_size": "1",
            "max_execution_time": str(args.seconds),
        }

        def query() -> None:
            started = time.monotonic()
            httpx.post(
                f"http://127.0.0.1:{sql_port}/",
                params=params,
                timeout=600,
                content=STATEMENTS[args.kind].format(seconds=args.seconds),
            )
            took.append(time.monotonic() - started)

        busy_start = time.monotonic()
        queries = [threading.Thread(target=query) for _ in range(args.queries)]
        for q in queries:
            q.start()
        for q in queries:
            q.join()
        busy_end = time.monotonic()
    finally:
        stop.set()
        sender.join(180)
        server.stop()
    print(
        f"{args.queries} x {args.kind} queries, {min(took):.1f}-{max(took):.1f} s each; "
        f"before them ({quiet_end - quiet_start:.0f} s): {gaps(stamps, quiet_start, quiet_end)}; "
        f"while they ran ({busy_end - busy_start:.0f} s): {gaps(stamps, busy_start, busy_end)}"
    )


if __name__ == "__main__":
    main()
