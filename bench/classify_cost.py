"""Where the traces agent view's cost goes (issue 17, option d): its analysis, its fixed cost per INSERT, and
each nested stage of its SELECT over stored spans, in one process (no server).

1. A fresh store without the agent views; the bench's spans (bench/ingest.py build_requests) inserted raw.
2. Medians of `--repeat` timings of: EXPLAIN QUERY TREE of the view's SELECT (the analysis alone); EXPLAIN
   PIPELINE (analysis and planning); the view's INSERT INTO agent_events over no rows (what every INSERT pays
   before the first row); and over every stored span.
3. The SELECT is nested stages (FROM ( ... )), the raw table innermost: each stage from the innermost out, every
   column it makes (SELECT *), over every stored span into FORMAT Null; a stage's cost is its time less the
   time of the stage inside it.

Usage: python bench/classify_cost.py [--spans 25000] [--repeat 5]
"""

import argparse
import re
import sys
import tempfile
import time
from pathlib import Path
from statistics import median

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from bench.ingest import arrow_rows, build_requests, fresh_store  # noqa: E402
from storage.schema_ddl import statement  # noqa: E402


def timed(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        fn()
        times.append(time.perf_counter() - started)
    return median(times)


def stages(select: str) -> list[str]:
    """The nested SELECTs of `select`, innermost first (the text inside each `FROM (` ... `)`), then `select`."""
    out = []
    at = 0
    while (opened := select.find("FROM (\n", at)) >= 0:
        start = opened + len("FROM (")
        depth, i = 1, start
        while depth:
            depth += {"(": 1, ")": -1}.get(select[i], 0)
            i += 1
        out.append(select[start:i - 1])
        at = start
    return [*reversed(out), select]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--spans", type=int, default=25_000)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    select = statement("agent_events_traces_mv").split(" TO agent_events AS", 1)[1]
    with tempfile.TemporaryDirectory() as tmp:
        store = fresh_store(Path(tmp) / "store", agent_views=False)
        client = store.client
        client.insert_arrow("otel_traces", arrow_rows(build_requests(args.spans)), settings={"async_insert": 0})
        n = client.command("SELECT count() FROM otel_traces")
        columns = ", ".join(row[0] for row in client.query(f"DESCRIBE ({select})").result_rows)
        insert = f"INSERT INTO agent_events ({columns}) {select}"
        empty = insert.replace("\nFROM otel_traces\n", "\nFROM otel_traces WHERE Duration > 18446744073709551000\n")
        r = args.repeat
        print(f"{n:,} stored spans; medians of {r}")
        analysis = timed(lambda: client.command(f"EXPLAIN QUERY TREE {select}"), r)
        print(f"EXPLAIN QUERY TREE (analysis): {analysis * 1000:.1f} ms")
        print(f"EXPLAIN PIPELINE (analysis and planning): "
              f"{timed(lambda: client.command(f'EXPLAIN PIPELINE {select}'), r) * 1000:.1f} ms")
        print(f"INSERT INTO agent_events over no rows: {timed(lambda: client.command(empty), r) * 1000:.1f} ms")
        full = timed(lambda: client.command(insert, settings={"insert_deduplicate": 0}), r)
        print(f"INSERT INTO agent_events over {n:,} spans: {full * 1000:.1f} ms, {full / n * 1e6:.2f} us a span")
        previous = 0.0
        print("| stage (innermost first) | function calls | what it makes (its aliases) | cumulative ms "
              "| the stage's own us a span |")
        print("|---|---|---|---|---|")
        nested = stages(select)
        for i, stage in enumerate(nested):
            text = stage if i == len(nested) - 1 else f"SELECT * FROM ({stage})"
            seconds = timed(lambda: client.command(f"{text} FORMAT Null"), r)
            own = stage.replace(nested[i - 1], "") if i else stage
            aliases = re.findall(r" AS (\w+)", own)
            calls = len(re.findall(r"\b[a-zA-Z]\w*\(", own))
            shown = ", ".join(aliases[:8]) + (f" and {len(aliases) - 8} more" if len(aliases) > 8 else "")
            print(f"| {i + 1} | {calls} | {shown} | {seconds * 1000:.1f} | {(seconds - previous) / n * 1e6:.2f} |")
            previous = seconds
        client.close()


if __name__ == "__main__":
    main()
