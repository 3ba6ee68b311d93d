"""`harborlight serve` with the agent classification run another way, to measure against the views (issue 17).

python bench/classify_variants.py VARIANT serve [serve flags]; VARIANT is one of:
- views: the schema as it is (the agent_events views fire on every INSERT into the raw tables).
- after-commit: the agent_events views are dropped and their SELECT (the same statement text) runs after the
  committer's commits, over the raw rows no pass has classified yet: `INSERT INTO agent_events SELECT ... FROM
  otel_traces WHERE _block_number > watermark AND _block_number <= end`, `end` the last committed block that
  keeps the range within 50,000 rows. The raw tables keep each row's insert block number
  (`enable_block_number_column`), so the range is exact whoever wrote the rows, and one pass covers every
  commit that landed while the previous pass ran.
- no-agent: the agent_events views are dropped and nothing classifies: the exporter's tables alone, the
  ceiling any classification is measured against (bench/ingest.py counts its stored spans instead).
The watermark of after-commit is held in memory: a prototype for bench/ingest.py's `--variants`, not a store.
"""

import logging
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import harborlight.app as app  # noqa: E402
from harborlight.agent.sources import CONTEXTS  # noqa: E402
from harborlight.cli.main import main as cli_main  # noqa: E402
from harborlight.store import Store  # noqa: E402
from harborlight.store.schema_ddl import statement  # noqa: E402

log = logging.getLogger("bench.classify")


def view_select(ctx, client) -> tuple[str, str]:
    """The columns and the SELECT of `ctx`'s agent view, the raw table read only in a block range."""
    select = statement(ctx.mv).split(" TO agent_events AS", 1)[1]
    raw = f"\nFROM {ctx.table}\n"
    assert select.count(raw) == 1, f"{ctx.mv}: the raw table is read once"
    in_range = "_block_number > {lo:UInt64} AND _block_number <= {hi:UInt64}"
    ranged = select.replace(raw, f"\nFROM {ctx.table} WHERE {in_range}\n")
    columns = [row[0] for row in client.query(f"DESCRIBE ({select})").result_rows]
    return ", ".join(columns), ranged


PASS_ROWS = 50_000  # the rows one pass classifies at most: a backlog in one INSERT outgrows the engine's memory


def range_end(client, table: str, lo: int) -> int:
    """The last committed block past `lo` such that the blocks (lo, end] hold at most PASS_ROWS rows (at
    least one block); `lo` when there is none. Every block up to the newest active part's is committed."""
    rows = client.query(
        f"SELECT _block_number, count() FROM {table} WHERE _block_number > {{lo:UInt64}} GROUP BY 1 ORDER BY 1",
        parameters={"lo": lo},
    ).result_rows
    end, total = lo, 0
    for block, n in rows:
        if total and total + n > PASS_ROWS:
            break
        end, total = block, total + n
    return end


class Classifier:
    """Runs the agent views' SELECT over the raw rows committed since its last pass, on its own thread."""

    def __init__(self, store: Store) -> None:
        self._store = store.another_connection()
        client = self._store.client
        self._plans = [(ctx.table, *view_select(ctx, client)) for ctx in CONTEXTS]
        self._watermarks = {ctx.table: 0 for ctx in CONTEXTS}
        self._wake = threading.Event()
        self.passes = 0
        self.seconds = 0.0
        self.after_pass: list = []
        threading.Thread(target=self._run, daemon=True, name="harborlight-classify").start()

    def wake(self, *_: object) -> None:
        self._wake.set()

    def _run(self) -> None:
        while True:
            self._wake.wait()
            self._wake.clear()
            try:
                self._pass()
            except Exception:  # memory, most likely, beside a commit: tried again, never a silent stop
                log.exception("classifying failed; trying again")
                time.sleep(0.5)
                self._wake.set()

    def _pass(self) -> None:
        client = self._store.client
        started = time.perf_counter()
        classified = False
        for table, columns, select in self._plans:
            lo = self._watermarks[table]
            hi = range_end(client, table, lo)
            if hi <= lo:
                continue
            client.command(
                f"INSERT INTO agent_events ({columns}) {select}",
                parameters={"lo": lo, "hi": hi},
                settings={"insert_deduplication_token": f"classify:{table}:{lo}-{hi}"},
            )
            self._watermarks[table] = hi
            classified = True
            self._wake.set()  # more may be waiting past hi
        if classified:
            self.passes += 1
            self.seconds += time.perf_counter() - started
            for callback in self.after_pass:
                callback()


def without_agent_views(store: Store) -> None:
    for ctx in CONTEXTS:
        store.client.command(f"DROP VIEW IF EXISTS {ctx.mv}")
        store.client.command(f"ALTER TABLE {ctx.table} MODIFY SETTING enable_block_number_column = 1")


def install(variant: str) -> None:
    if variant == "views":
        return
    opened = app.open_store

    def open_store(settings) -> Store:
        store = opened(settings)
        without_agent_views(store)
        if variant == "after-commit":
            classifier = Classifier(store)

            class ClassifyingCommitter(app.Committer):
                def __init__(self, *args, **kwargs) -> None:
                    super().__init__(*args, **kwargs)
                    self.on_commit.append(classifier.wake)

            class Keeper(app.TrialRowsKeeper):  # the trial rows are derived from agent events: after a pass
                def start(self):
                    classifier.after_pass.append(self.wake)
                    return super().start()

            app.Committer = ClassifyingCommitter
            app.TrialRowsKeeper = Keeper
        elif variant != "no-agent":
            raise SystemExit(f"unknown variant {variant!r}: views, after-commit or no-agent")
        return store

    app.open_store = open_store


if __name__ == "__main__":
    install(sys.argv[1])
    sys.exit(cli_main(sys.argv[2:]))
