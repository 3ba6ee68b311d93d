"""`harborlight serve` with the agent classification out of the per-span views (issue 36), for bench/ingest.py's
`--variants`:

python bench/classify_arrow.py VARIANT serve [serve flags]; VARIANT is one of:
- arrow: the agent_events views are dropped; the committer has the engine decode each group of requests into
  the raw rows, read back as Arrow, classifies them with the Arrow compilation of the rule table
  (harborlight/agent/arrow_compile.py, on the committer's thread) and writes the raw rows and the agent rows
  as two plain Arrow inserts under the group's token (harborlight/commit/arrow_insert.py).
- arrow-split: as arrow, but the engine writes the raw rows straight from the requests (its own INSERT ...
  SELECT, as with no views) and decodes them a second time, only the columns the classification reads, into
  Arrow; only the agent rows are an Arrow insert.
- engine-once: the agent_events views are dropped; the engine decodes each group once into a Memory table, then
  the raw rows are copied from it into the raw table and the views' own SELECT (the same statement text) reads
  it into agent_events: the decoded block classified by the engine, not by views re-reading the inserted rows.
Other variants: bench/classify_variants.py.
"""

import sys
from functools import partial
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import harborlight.app as app  # noqa: E402
import harborlight.commit.batch_inserter as batch_inserter  # noqa: E402
from bench.classify_variants import install as install_other  # noqa: E402
from bench.classify_variants import without_agent_views  # noqa: E402
from harborlight.agent.sources import CONTEXTS  # noqa: E402
from harborlight.cli.main import main as cli_main  # noqa: E402
from harborlight.commit import ingest_sql  # noqa: E402
from harborlight.commit.arrow_insert import insert_requests_classified  # noqa: E402
from harborlight.commit.otlp_insert import (  # noqa: E402
    _framed,
    _settings,
    insert_requests,  # noqa: E402
)
from harborlight.sql_text import literal  # noqa: E402
from harborlight.store import Signal, Store  # noqa: E402
from harborlight.store.schema_ddl import statement  # noqa: E402

_CTX = {Signal.traces: CONTEXTS[0], Signal.logs: CONTEXTS[1]}
_INSERT = {Signal.traces: ingest_sql.traces_insert, Signal.logs: ingest_sql.logs_insert}


def insert_engine_once(
    store: Store,
    signal: Signal,
    requests: list[bytes],
    tenant: str | None = None,
    nested: bool | None = None,
    retry_token: str | None = None,
) -> None:
    """Decode once into a Memory table; the raw rows and the agent rows both read from it."""
    import os
    import tempfile

    from harborlight.commit.ingest_sql import DECODING
    from harborlight.commit.otlp_insert import needs_nested_decoding
    from harborlight.commit.structured_values import with_structured_values_as_text

    if signal not in _CTX or not requests:
        insert_requests(store, signal, requests, tenant, nested, retry_token)
        return
    ctx, client = _CTX[signal], store.client
    stage = f"staged_{ctx.table}"
    client.command(f"CREATE TABLE IF NOT EXISTS {stage} ENGINE = Memory AS SELECT * FROM {ctx.table} LIMIT 0")
    client.command(f"TRUNCATE TABLE {stage}")
    if nested is None or nested:
        requests = [
            with_structured_values_as_text(signal, r) if needs_nested_decoding(signal, r) else r for r in requests
        ]
    settings = _settings(signal, DECODING, True)
    structure = literal(DECODING.traces_structure if signal is Signal.traces else DECODING.logs_structure)
    fd, path = tempfile.mkstemp(dir=store.spool_dir, suffix=".pb")
    try:
        with os.fdopen(fd, "wb") as f:
            f.writelines(_framed(requests))
        source = f"file({literal(path)}, 'Protobuf', {structure})"
        decode = _INSERT[signal](source, tenant, DECODING).replace(
            f"INSERT INTO {ctx.table} ", f"INSERT INTO {stage} ", 1
        )
        inline = ", ".join(f"{k} = {literal(v)}" for k, v in settings.items())
        client.command(f"{decode} SETTINGS {inline}")
    finally:
        os.unlink(path)
    write = {"async_insert": "0", "max_partitions_per_insert_block": "0"}
    if retry_token:
        write["insert_deduplication_token"] = f"{retry_token}:{signal.value}:{tenant or ''}"
        write["deduplicate_blocks_in_dependent_materialized_views"] = "1"
    client.command(f"INSERT INTO {ctx.table} SELECT * FROM {stage}", settings=write)
    select = statement(ctx.mv).split(" TO agent_events AS", 1)[1]
    raw = f"\nFROM {ctx.table}\n"
    assert select.count(raw) == 1, f"{ctx.mv}: the raw table is read once"
    columns = _columns(client, ctx.mv, select)
    client.command(f"INSERT INTO agent_events ({columns}) {select.replace(raw, f'\nFROM {stage}\n')}", settings=write)
    # Emptied at once: a Memory table's rows count against the engine's memory limit until then (the keeper's
    # passes between two commits failed on it).
    client.command(f"TRUNCATE TABLE {stage}")


_COLUMNS: dict[str, str] = {}


def _columns(client, name: str, select: str) -> str:
    if name not in _COLUMNS:
        _COLUMNS[name] = ", ".join(row[0] for row in client.query(f"DESCRIBE ({select})").result_rows)
    return _COLUMNS[name]


def install(variant: str) -> None:
    inserts = {
        "arrow": insert_requests_classified,
        "arrow-split": partial(insert_requests_classified, raw_by_engine=True),
        "engine-once": insert_engine_once,
    }
    if variant not in inserts:
        install_other(variant)
        return
    opened = app.open_store
    insert = inserts[variant]

    def open_store(settings) -> Store:
        store = opened(settings)
        without_agent_views(store)
        batch_inserter.insert_requests = insert  # type: ignore[assignment]
        return store

    app.open_store = open_store


if __name__ == "__main__":
    install(sys.argv[1])
    sys.exit(cli_main(sys.argv[2:]))
