"""What inserting a commit's agent rows costs, split by what the insert writes (issue 36), in one process.

The bench's spans (bench/ingest.py build_requests) are stored once and classified in Arrow
(harborlight/agent/arrow_compile.py); the same agent rows are then inserted, in commits of 10,000, into:
- agent_events as the store has it (its skip indexes, and the views that feed trial_arrivals and agent_names);
- a copy of its columns and indexes with no views on it;
- that copy with the Provenance map as one String a row (`key=value` pairs joined by commas: a narrower form);
- that copy without the Provenance map;
- that copy without its skip indexes either.
Each way runs `--rounds` times, the ways taking turns; medians are reported, as ratios to the raw spans' own
insert (otel_traces alone, the same rows' commit without agent rows) timed in the same rounds.

Usage: python bench/agent_row_cost.py [--spans 60000] [--rounds 3]
"""

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

import pyarrow as pa

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from bench.ingest import build_requests  # noqa: E402
from harborlight.agent.arrow_compile import classify  # noqa: E402
from harborlight.agent.sources import CONTEXTS  # noqa: E402
from harborlight.commit.otlp_insert import insert_requests  # noqa: E402
from harborlight.store import Signal, ensure_schema, open_client  # noqa: E402

GROUP = 20  # requests a commit (10,000 spans)
BATCH = 10_000  # agent rows an insert


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--spans", type=int, default=60_000)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    requests = build_requests(args.spans)
    with tempfile.TemporaryDirectory(ignore_cleanup_errors=True) as tmp:
        store = open_client(Path(tmp) / "store")
        client = store.client
        ensure_schema(client)
        for ctx in CONTEXTS:
            client.command(f"DROP VIEW IF EXISTS {ctx.mv}")  # the raw rows alone
        client.command("CREATE TABLE agent_copy AS agent_events")
        client.command("CREATE TABLE agent_provenance_text AS agent_events")
        client.command("ALTER TABLE agent_provenance_text MODIFY COLUMN Provenance String")
        client.command("CREATE TABLE agent_no_provenance AS agent_events")
        client.command("ALTER TABLE agent_no_provenance DROP COLUMN Provenance")
        client.command("CREATE TABLE agent_bare AS agent_no_provenance")
        for (index,) in client.query(
            "SELECT name FROM system.data_skipping_indices WHERE database = currentDatabase() AND table = 'agent_bare'"
        ).result_rows:
            client.command(f"ALTER TABLE agent_bare DROP INDEX {index}")

        def raw_commits() -> float:
            client.command("TRUNCATE TABLE otel_traces")
            started = time.perf_counter()
            for i in range(0, len(requests), GROUP):
                insert_requests(store, Signal.traces, requests[i : i + GROUP], retry_token=f"raw:{time.time_ns()}:{i}")
            return time.perf_counter() - started

        raw_commits()
        rows = pa.concat_tables([classify(client.query_arrow("SELECT * FROM otel_traces"), "span")])
        print(f"{rows.num_rows:,} agent rows of {args.spans:,} spans, {rows.num_columns} columns")
        without = rows.drop_columns(["Provenance"])
        as_text = pa.array([",".join(f"{k}={v}" for k, v in m) for m in rows.column("Provenance").to_pylist()])
        text = rows.set_column(rows.schema.get_field_index("Provenance"), "Provenance", as_text)
        ways = {
            "agent_events (indexes, views)": ("agent_events", rows),
            "its columns and indexes, no views": ("agent_copy", rows),
            "no views, Provenance as one String": ("agent_provenance_text", text),
            "no views, no Provenance": ("agent_no_provenance", without),
            "no views, no Provenance, no indexes": ("agent_bare", without),
        }

        def agent_inserts(table: str, data: pa.Table) -> float:
            client.command(f"TRUNCATE TABLE {table}")
            started = time.perf_counter()
            for at in range(0, data.num_rows, BATCH):
                client.insert_arrow(table, data.slice(at, BATCH), settings={"async_insert": 0})
            return time.perf_counter() - started

        measured: dict[str, list[float]] = {"raw spans (otel_traces)": []} | {label: [] for label in ways}
        for _ in range(args.rounds):
            measured["raw spans (otel_traces)"].append(raw_commits())
            for label, (table, data) in ways.items():
                measured[label].append(agent_inserts(table, data))
        raw = statistics.median(measured["raw spans (otel_traces)"])
        print(f"\n{'insert':<40} {'median s':>9} {'of the raw commit':>18}   ({args.rounds} rounds)")
        for label, seconds in measured.items():
            median = statistics.median(seconds)
            print(f"{label:<40} {median:>9.2f} {median / raw:>18.2f}")
        client.close()


if __name__ == "__main__":
    main()
