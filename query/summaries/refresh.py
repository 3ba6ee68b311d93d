"""Derives the stored trial rows (trial_rows) again for the trials whose events changed.

The derivation is query/derive/'s (the same trial facts, outcome and timings the events give); this
module only finds what changed (query/statements/trial_summary_sql.py), loads those trials' facts from
their events (query/statements/load_trials.py) and writes the rows. It writes the rows first and the
arrival counts they were derived at last, so a process that dies in between leaves the names stale and
the next refresh derives them again: a reader never keeps a row older than the events it has seen.
Readers refresh before they read (a few ms when nothing changed); the server also refreshes after each
commit (TrialRowsKeeper), so the dashboards' plain SELECTs see fresh rows.
"""

import json
import logging
import threading
import time
from collections import defaultdict
from collections.abc import Sequence

from clickhouse_connect.driver.client import Client

from query.derive.records import LoadedTrial
from query.derive.rows_json import trial_row
from query.statements.load_trials import load_trials
from query.statements.stored_trials import facts_json
from query.statements.trial_summary_sql import STALE, STORED_NAMES, TOUCHED
from storage import Store

log = logging.getLogger(__name__)

CHUNK = 500  # trial names derived per statement
_BOOKKEEPING = ("Tenant", "Version", "Deleted", "Facts", "Row")
_columns: dict[int, list[str]] = {}  # trial_rows' stored columns, per connection


def refresh(client: Client, tenant: str = "") -> int:
    """Derives again the rows of every trial whose events changed since theirs were derived ({tenant} '':
    every tenant's). Returns how many trial names were stale. Two refreshes at once (a reader's and the
    keeper's) may derive the same trial: each writes the same row, the newer version wins."""
    stale = client.query(STALE, parameters={"tenant": tenant}).result_rows
    by_tenant: dict[str, list[tuple[str, int]]] = defaultdict(list)
    for owner, key, arrived in stale:
        by_tenant[owner].append((key, arrived))
    for owner, keys in by_tenant.items():
        columns = _columns.get(id(client)) or _columns.setdefault(id(client), [
            r[0] for r in client.query("DESCRIBE TABLE trial_rows").result_rows if r[2] == ""])  # not ALIAS ones
        for at in range(0, len(keys), CHUNK):
            _derive(client, owner, keys[at:at + CHUNK], columns)
    return len(stale)


def _derive(client: Client, tenant: str, keys: Sequence[tuple[str, int]], columns: list[str]) -> None:
    version = time.time_ns()  # before the reads: a derivation from newer events always wins
    names = [key for key, _ in keys]
    touched = {r[0] for r in client.query(TOUCHED, parameters={"tenant": tenant, "keys": names}).result_rows}
    trials = sorted((set(names) | touched) - {""})
    loaded = load_trials(client, tenant, trials=trials) if trials else []
    present = {(t.facts.job, t.facts.trial) for t in loaded}
    gone = [(job, trial) for job, trial in client.query(
        STORED_NAMES, parameters={"tenant": tenant, "trials": trials}).result_rows if (job, trial) not in present]
    rows = [_stored_row(tenant, version, t, columns) for t in loaded]
    rows += [[{"Tenant": tenant, "Version": version, "Deleted": 1, "job": job, "trial": trial}.get(c, _empty(c))
              for c in columns] for job, trial in gone]
    if rows:
        client.insert("trial_rows", rows, column_names=columns)
    client.insert("trial_summarized", [[tenant, key, arrived, version] for key, arrived in keys],
                  column_names=["Tenant", "TrialKey", "Arrived", "Version"])
    log.debug("derived %d trial rows again (%d gone) for %d changed names", len(loaded), len(gone), len(keys))


def _empty(column: str) -> object:
    return {"Facts": "", "Row": "", "is_running": False, "n_events": 0}.get(column)


def _stored_row(tenant: str, version: int, trial: LoadedTrial, columns: list[str]) -> list[object]:
    """The row the API answers, its fields (else the facts') as the table's columns by the same names."""
    row = trial_row(trial)
    values = {"Tenant": tenant, "Version": version, "Deleted": 0, "Facts": facts_json(trial.facts),
              "Row": json.dumps(row, separators=(",", ":"))}
    for column in columns:
        if column not in _BOOKKEEPING:
            value = row[column] if column in row else getattr(trial.facts, column)
            values[column] = value["value"] if isinstance(value, dict) else value
    return [values[c] for c in columns]


class TrialRowsKeeper:
    """Refreshes the stored trial rows on a thread and a connection of its own whenever woken (after each
    commit, and once on start for a store with trials not derived yet), so every reader finds them fresh."""

    def __init__(self, store: Store) -> None:
        self._store = store.another_connection()
        self._wake = threading.Event()
        self._stopping = False
        self._thread = threading.Thread(target=self._run, name="trial-rows", daemon=True)

    def start(self) -> "TrialRowsKeeper":
        self._thread.start()
        self.wake()
        return self

    def stop(self) -> None:
        self._stopping = True
        self._wake.set()
        self._thread.join()
        if self._store.embedded:
            self._store.client.close()

    def wake(self, *_: object) -> None:
        self._wake.set()

    def _run(self) -> None:
        while True:
            self._wake.wait()
            self._wake.clear()
            if self._stopping:
                return
            try:
                refresh(self._store.client)
            except Exception:  # the next wake, or a reader's own refresh, tries again
                log.exception("could not derive the changed trials' rows")
