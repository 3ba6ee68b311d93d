"""Where the traces agent view's cost goes (issue 17, option d): its analysis, its fixed cost per INSERT, and
each nested stage of its SELECT over stored spans, in one process (no server).

1. A fresh store without the agent views; the bench's spans (bench/ingest.py build_requests) inserted raw.
2. Medians of `--repeat` timings of: EXPLAIN QUERY TREE of the view's SELECT (the analysis alone); EXPLAIN
   PIPELINE (analysis and planning); the view's INSERT INTO agent_events over no rows (what every INSERT pays
   before the first row); and over every stored span.
3. The SELECT is nested stages (FROM ( ... )), the raw table innermost: each stage from the innermost out, every
   column it makes (SELECT *), over every stored span into FORMAT Null; a stage's cost is its time less the
   time of the stage inside it.
4. The stage that makes `_e` (the ranked pass over every attribute, harborlight/agent/compile.py _Entries) taken
   apart: the same stage without its sort, without its validity filter, without the computed entries (the
   values that are not a plain attribute or resource key), and with every key ranked 0 (no `transform`).

Usage: python bench/classify_cost.py [--spans 25000] [--repeat 5]
"""

import argparse
import re
import sys
import tempfile
import time
from functools import partial
from pathlib import Path
from statistics import median

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from bench.ingest import arrow_rows, build_requests, fresh_store  # noqa: E402
from harborlight.store.schema_ddl import statement  # noqa: E402


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
        out.append(select[start : i - 1])
        at = start
    return [*reversed(out), select]


def closing(text: str, at: int) -> int:
    """The index just past the bracket that closes the one opened at `at` (string literals skipped)."""
    depth, i = 0, at
    while True:
        c = text[i]
        if c in "([":
            depth += 1
        elif c in ")]":
            depth -= 1
            if not depth:
                return i + 1
        elif c == "'":
            i += 1
            while text[i] != "'":
                i += 2 if text[i] == "\\" else 1
        i += 1


def without(text: str, head: str, keep_inner: bool) -> str:
    """`text` with the call that starts with `head` (e.g. "arraySort(") replaced by its parenthesised
    arguments (keep_inner) or removed."""
    at = text.index(head)
    end = closing(text, at + len(head) - 1)
    return text[:at] + ("(" + text[at + len(head) : end] if keep_inner else "") + text[end:]


def entries_variants(stage: str) -> dict[str, str]:
    """The `_e` stage, as it is and with one part taken out at a time."""
    e_at = stage.index("arraySort(arrayFilter(e -> ")
    zip_at = stage.index(", arrayZip(", e_at)
    no_filter = stage[:e_at] + "arraySort((" + stage[zip_at + 2 :]
    no_computed = stage
    for marker in ("mapValues(_r), [", "mapKeys(_r)), ["):  # the later list first: drop ", [...]"
        at = no_computed.index(marker, e_at) + len(marker) - 1
        no_computed = no_computed[: at - 2] + no_computed[closing(no_computed, at) :]
    no_transform = re.sub(
        r"arrayMap\(k -> transform\(k, \[.*?\], \[[0-9, ]*\], 0\), mapKeys\((_a|_r)\)\)",
        r"arrayMap(k -> 0, mapKeys(\1))",
        stage,
    )
    return {
        "as it is": stage,
        "without the sort": without(stage, "arraySort(", True),
        "without the validity filter": no_filter,
        "without the computed entries": no_computed,
        "no transform (every key ranked 0)": no_transform,
    }


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
        print(
            f"EXPLAIN PIPELINE (analysis and planning): "
            f"{timed(lambda: client.command(f'EXPLAIN PIPELINE {select}'), r) * 1000:.1f} ms"
        )
        print(f"INSERT INTO agent_events over no rows: {timed(lambda: client.command(empty), r) * 1000:.1f} ms")
        full = timed(lambda: client.command(insert, settings={"insert_deduplicate": 0}), r)
        print(f"INSERT INTO agent_events over {n:,} spans: {full * 1000:.1f} ms, {full / n * 1e6:.2f} us a span")
        previous = 0.0
        print(
            "| stage (innermost first) | function calls | what it makes (its aliases) | cumulative ms "
            "| the stage's own us a span |"
        )
        print("|---|---|---|---|---|")
        nested = stages(select)
        for i, stage in enumerate(nested):
            text = stage if i == len(nested) - 1 else f"SELECT * FROM ({stage})"
            seconds = timed(partial(client.command, f"{text} FORMAT Null"), r)
            own = stage.replace(nested[i - 1], "") if i else stage
            aliases = re.findall(r" AS (\w+)", own)
            calls = len(re.findall(r"\b[a-zA-Z]\w*\(", own))
            shown = ", ".join(aliases[:8]) + (f" and {len(aliases) - 8} more" if len(aliases) > 8 else "")
            print(f"| {i + 1} | {calls} | {shown} | {seconds * 1000:.1f} | {(seconds - previous) / n * 1e6:.2f} |")
            previous = seconds
        inner = nested[3]
        print("| the `_e` stage | ms (its own: less the stage inside it) | us a span |")
        print("|---|---|---|")
        below = timed(lambda: client.command(f"SELECT * FROM ({inner}) FORMAT Null"), r)
        for name, stage in entries_variants(nested[4]).items():
            seconds = timed(partial(client.command, f"SELECT * FROM ({stage}) FORMAT Null"), r)
            print(f"| {name} | {(seconds - below) * 1000:.1f} | {(seconds - below) / n * 1e6:.2f} |")
        client.close()


if __name__ == "__main__":
    main()
