"""What writing Native at a client's protocol revision costs beside the statement itself, measured in one run.

Fills an in-memory chDB table shaped like the OpenTelemetry logs table (a DateTime64 time, a LowCardinality
level, a Map of resource attributes, a body, a trace id), then times the engine's revision-0 Native answer
to the logs list's columns and `harborlight/sqlport/clickhouse_native.py`'s reframing of it for clickhouse-go's revision
(54460), `--rounds` times each, and prints the medians and their ratio.

Usage: python bench/native_framing.py [--rows 100000] [--rounds 5]
"""

import argparse
import statistics
import sys
import time
from pathlib import Path

import chdb

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from harborlight.sqlport.clickhouse_native import reframe  # noqa: E402

TABLE = """CREATE TABLE logs (Timestamp DateTime64(9), SeverityText LowCardinality(String),
ResourceAttributes Map(LowCardinality(String), String), Body String, TraceId String)
ENGINE = MergeTree ORDER BY Timestamp"""
FILL = """INSERT INTO logs SELECT now64(9) + number, ['ERROR', 'INFO', 'WARN'][number % 3 + 1],
map('service.name', 'svc-' || toString(number % 7), 'host.name', 'h1', 'k' || toString(number % 5), 'v'),
repeat('x', 100), lower(hex(randomString(16))) FROM numbers({rows})"""
QUERY = "SELECT Timestamp, Body, SeverityText, TraceId, ResourceAttributes FROM logs"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    engine = chdb.connect(":memory:")
    engine.query(TABLE)
    engine.query(FILL.format(rows=args.rows))
    query_s, frame_s = [], []
    for _ in range(args.rounds):
        started = time.perf_counter()
        answer = engine.query(QUERY, "Native").bytes()
        query_s.append(time.perf_counter() - started)
        started = time.perf_counter()
        reframe(answer, 54460)
        frame_s.append(time.perf_counter() - started)
    query, frame = statistics.median(query_s), statistics.median(frame_s)
    print(
        f"{args.rows:,} rows, {len(answer) / 1e6:.1f} MB of Native: statement {query * 1000:.0f} ms, "
        f"reframing {frame * 1000:.0f} ms ({frame / args.rows * 1e6:.1f} us a row), ratio {frame / query:.2f}"
    )


if __name__ == "__main__":
    main()
