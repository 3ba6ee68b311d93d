"""Where a commit's time goes with the classification in the views and in Arrow (issue 36), in one process.

The bench's spans (bench/ingest.py build_requests: traces of 10 spans, 8 GenAI attributes, half of them tool
calls), committed in groups of 20 requests (10,000 spans) into one embedded store, one way after the other:
- views: the schema as it is (harborlight/commit/otlp_insert.py, the agent_events views fire);
- lean: the same INSERT with the agent views dropped (no agent rows);
- arrow: harborlight/commit/arrow_insert.py (decoded by the engine, back as Arrow, classified in Arrow, raw
  and agent rows two Arrow inserts);
- arrow-split: the same with the raw rows written by the engine (raw_by_engine);
- engine-once: the engine decodes once into a Memory table, the raw rows and the views' SELECT read it
  (bench/classify_arrow.py).
Checks that every way gives the views' agent rows, then splits the Arrow classification's cost in three over
the stored spans: reading them back as Arrow, classifying, inserting the agent rows.

Usage: python bench/classify_arrow_parts.py [--spans 60000]
"""

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from bench.classify_arrow import insert_engine_once  # noqa: E402
from bench.ingest import build_requests  # noqa: E402
from harborlight.agent.arrow_compile import classify  # noqa: E402
from harborlight.agent.sources import CONTEXTS  # noqa: E402
from harborlight.commit.arrow_insert import insert_requests_classified  # noqa: E402
from harborlight.commit.otlp_insert import insert_requests  # noqa: E402
from harborlight.store import Signal, ensure_schema, open_client  # noqa: E402

GROUP = 20  # requests a commit


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--spans", type=int, default=60_000)
    args = parser.parse_args()
    requests = build_requests(args.spans)
    with tempfile.TemporaryDirectory(ignore_cleanup_errors=True) as tmp:
        store = open_client(Path(tmp) / "store")
        client = store.client
        ensure_schema(client)
        columns = [r[0] for r in client.query("DESCRIBE agent_events").result_rows]

        def agent_rows() -> list[tuple]:
            return sorted(client.query(f"SELECT {', '.join(columns)} FROM agent_events").result_rows, key=str)

        def run(label: str, insert) -> tuple[float, list[tuple]]:
            client.command("TRUNCATE TABLE agent_events")
            client.command("TRUNCATE TABLE otel_traces")
            started = time.perf_counter()
            for i in range(0, len(requests), GROUP):
                insert(store, Signal.traces, requests[i : i + GROUP], retry_token=f"{label}:{i}")
            seconds = time.perf_counter() - started
            print(f"{label}: {seconds:.2f} s, {args.spans / seconds:,.0f} spans/s", flush=True)
            return seconds, agent_rows()

        views, expected = run("views", insert_requests)
        for ctx in CONTEXTS:
            client.command(f"DROP VIEW IF EXISTS {ctx.mv}")
        lean, _ = run("lean (no agent rows)", insert_requests)
        arrow, rows = run("arrow", insert_requests_classified)
        assert rows == expected, "arrow: agent rows differ from the views'"
        split, rows = run("arrow-split", lambda *a, **k: insert_requests_classified(*a, **k, raw_by_engine=True))
        assert rows == expected, "arrow-split: agent rows differ from the views'"
        once, rows = run("engine-once", insert_engine_once)
        assert rows == expected, "engine-once: agent rows differ from the views'"
        print(
            f"of the lean commit: views {lean / views:.2f}, arrow {lean / arrow:.2f}, arrow-split {lean / split:.2f}, "
            f"engine-once {lean / once:.2f}; against the views: arrow {views / arrow:.2f}x, arrow-split "
            f"{views / split:.2f}x, engine-once {views / once:.2f}x"
        )
        client.command("TRUNCATE TABLE agent_events")
        started = time.perf_counter()
        raws = [client.query_arrow(f"SELECT * FROM otel_traces WHERE cityHash64(SpanId) % 6 = {i}") for i in range(6)]
        read = time.perf_counter()
        classified = [classify(raw, "span") for raw in raws]
        done = time.perf_counter()
        for table in classified:
            client.insert_arrow("agent_events", table, settings={"async_insert": 0})
        inserted = time.perf_counter()
        n = sum(t.num_rows for t in raws)
        print(
            f"over {n:,} stored spans: read back as Arrow {read - started:.2f} s, classified in Arrow "
            f"{done - read:.2f} s ({(done - read) / n * 1e6:.1f} us a span), agent rows inserted "
            f"{inserted - done:.2f} s"
        )
        client.close()


if __name__ == "__main__":
    main()
