"""Derives the stored trial rows (trial_rows) again for the trials whose events changed, and the job rows
(job_rows) of their jobs.

The derivation is harborlight/read/derive/'s (the same trial facts, outcome and timings the events give; the same job
row from the trials' facts); this module only finds what changed (harborlight/read/statements/trial_summary_sql.py),
loads those trials' facts from their events (harborlight/read/statements/load_trials.py) and writes the rows. It writes
the trial rows first, then their jobs' rows, and the arrival counts they were derived at last, so a process
that dies in between leaves the names stale and the next refresh derives them again: a reader never keeps a
row older than the events it has seen.
Readers refresh before they read (a few ms when nothing changed); the server also refreshes after each
commit (TrialRowsKeeper), so the dashboards' plain SELECTs see fresh rows.
"""

import json
import logging
import sys
import threading
import time
import traceback
from collections import defaultdict
from collections.abc import Iterable, Sequence

from clickhouse_connect.driver.client import Client

from harborlight.read.derive.records import LoadedTrial
from harborlight.read.derive.rows_json import job_row, trial_row
from harborlight.read.statements.job_rows_sql import UNDERIVED
from harborlight.read.statements.load_trials import load_trials
from harborlight.read.statements.stored_jobs import stored_job_rows
from harborlight.read.statements.stored_trials import facts_json, stored_rows, stored_trials
from harborlight.read.statements.trial_summary_sql import STALE, STORED_NAMES, TOUCHED
from harborlight.store import Store
from harborlight.summaries.resolve import RESOLVED_TABLES, mark_rule, resolve_trials, rule_changed
from harborlight.write_errors import brief

log = logging.getLogger(__name__)

# The tables the keeper writes: a statement that reads one waits for its pass over what was committed before it.
KEEPER_TABLES = (
    *RESOLVED_TABLES,
    "trial_rows",
    "job_rows",
    "trial_summarized",
    "harborlight_resolved_rule",
)

CHUNK = 500  # trial names derived per statement, at most
# Agent events resolved per statement, at most (a trial larger than this alone): the resolution's joins hold its
# trials' calls in memory, and 100 trials of 2,400 events each (240,000) needed more than the engine's 1 GiB of a
# 2 GiB server (in runs of 50,000 they did not); a pass that fails on it fails again every time.
CHUNK_EVENTS = 50_000
REST = 2.0  # the keeper's pause after a refresh, in lengths of that refresh
MAX_PAUSE_SECONDS = 5.0
FAILED_PAUSE_SECONDS = 0.25  # the pause after the second failed pass in a row, doubled after each further one
_columns: dict[tuple[int, str], list[str]] = {}  # a table's stored columns, per connection


def reads_derived_rows(statement: str, parameters: Iterable[str] = ()) -> bool:
    """Whether a SQL statement names a table the keeper writes, in its text or a parameter's value (an Identifier
    parameter names a table). A name in a comment or a string counts too: the statement then waits a pass it did
    not need, never the other way round."""
    text = " ".join([statement, *parameters]).lower()
    return any(table in text for table in KEEPER_TABLES)


def refresh(client: Client, tenant: str = "") -> int:
    """Derives again the rows of every trial whose events changed since theirs were derived ({tenant} '':
    every tenant's). Returns how many trial names were stale. Two refreshes at once (a reader's and the
    keeper's) may derive the same trial: each writes the same row, the newer version wins."""
    stale = client.query(STALE, parameters={"tenant": tenant}).result_rows
    by_tenant: dict[str, list[tuple[str, int]]] = defaultdict(list)
    for owner, key, arrived in stale:
        by_tenant[owner].append((key, arrived))
    for owner, keys in by_tenant.items():
        jobs: set[str] = set()
        parts = chunks(keys)
        for part in parts:
            jobs |= _derive(client, owner, part)
        derive_jobs(client, owner, sorted(jobs))
        for part in parts:
            client.insert(
                "trial_summarized",
                [[owner, key, arrived, time.time_ns()] for key, arrived in part],
                column_names=["Tenant", "TrialKey", "Arrived", "Version"],
            )
    return len(stale)


def chunks(keys: Sequence[tuple[str, int]]) -> list[Sequence[tuple[str, int]]]:
    """`keys` (trial names with their events' count) in runs of at most CHUNK names and CHUNK_EVENTS events;
    a name with more events than that is a run of its own."""
    runs: list[Sequence[tuple[str, int]]] = []
    start, events = 0, 0
    for at, (_, arrived) in enumerate(keys):
        if at > start and (at - start == CHUNK or events + arrived > CHUNK_EVENTS):
            runs.append(keys[start:at])
            start, events = at, 0
        events += arrived
    if start < len(keys):
        runs.append(keys[start:])
    return runs


def rows_reshaped(client: Client) -> bool:
    """Whether the stored rows were derived by code whose rows have other fields than today's (a trial row
    and its job's row, derived again from the stored facts, compared by their fields): a store from before
    a field was added or removed."""
    sample = stored_trials(client, "", limit=1)
    if not sample:
        return False
    trial = sample[0].facts
    stored = stored_rows(client, "", jobs=[trial.job], trial=trial.trial, limit=1)
    if not stored or set(stored[0]) != set(trial_row(sample[0])):
        return True
    job = stored_job_rows(client, "", [trial.job]).get(trial.job)
    facts = [t.facts for t in stored_trials(client, "", jobs=[trial.job])]
    return job is not None and set(job) != set(job_row(trial.job, facts))


def restale_all(client: Client) -> None:
    """Marks every trial name stale (derived at zero events), so the next refresh derives every trial row
    and job row again; the same statement on one engine and on a cluster's tables."""
    client.command(
        f"INSERT INTO trial_summarized (Tenant, TrialKey, Arrived, Version) "
        f"SELECT DISTINCT Tenant, TrialKey, 0, {time.time_ns()} FROM trial_arrivals"
    )


def derive_underived_jobs(client: Client) -> int:
    """Derives the rows of the jobs whose trials are stored without one (a store from before job rows)."""
    by_tenant: dict[str, list[str]] = defaultdict(list)
    for owner, job in client.query(UNDERIVED).result_rows:
        by_tenant[owner].append(job)
    for owner, jobs in by_tenant.items():
        derive_jobs(client, owner, jobs)
    return sum(len(jobs) for jobs in by_tenant.values())


def derive_jobs(client: Client, tenant: str, jobs: Sequence[str], delete_empty: bool = True) -> None:
    """Derives the rows of `jobs` again from their stored trial rows; a job with none left is deleted
    (delete_empty), else passed over (a reader asking for a job that never was writes nothing)."""
    if not jobs:
        return
    version = time.time_ns()
    trials: dict[str, list[LoadedTrial]] = {job: [] for job in jobs}
    for t in stored_trials(client, tenant, jobs=jobs):
        trials[t.facts.job].append(t)
    columns = _stored_columns(client, "job_rows")
    rows = []
    for job, loaded in trials.items():
        if not loaded:
            if not delete_empty:
                continue
            rows.append(
                [{"Tenant": tenant, "Version": version, "Deleted": 1, "job": job}.get(c, _empty(c)) for c in columns]
            )
            continue
        row = job_row(job, [t.facts for t in loaded])
        seen = {
            "first_seen": min((t.first_seen for t in loaded if t.first_seen is not None), default=None),
            "last_seen": max((t.last_seen for t in loaded if t.last_seen is not None), default=None),
        }
        rows.append(_stored_values(tenant, version, row, columns, seen))
    if rows:
        client.insert("job_rows", rows, column_names=columns)


def _stored_columns(client: Client, table: str) -> list[str]:
    key = (id(client), table)
    if key not in _columns:
        _columns[key] = [r[0] for r in client.query(f"DESCRIBE TABLE {table}").result_rows if r[2] == ""]  # not ALIAS
    return _columns[key]


def _derive(client: Client, tenant: str, keys: Sequence[tuple[str, int]]) -> set[str]:
    """Derives the trial rows the changed names touch; returns the jobs those trials are (or were) in."""
    columns = _stored_columns(client, "trial_rows")
    version = time.time_ns()  # before the reads: a derivation from newer events always wins
    names = [key for key, _ in keys]
    rows = client.query(TOUCHED.text, parameters=TOUCHED.bind({"tenant": tenant, "keys": names})).result_rows
    touched = {r[0] for r in rows}
    resolve_trials(client, tenant, sorted(set(names) | touched), version)
    trials = sorted((set(names) | touched) - {""})
    loaded = load_trials(client, tenant, trials=trials) if trials else []
    present = {(t.facts.job, t.facts.trial) for t in loaded}
    gone = [
        (job, trial)
        for job, trial in client.query(STORED_NAMES, parameters={"tenant": tenant, "trials": trials}).result_rows
        if (job, trial) not in present
    ]
    rows = [_stored_row(tenant, version, t, columns) for t in loaded]
    rows += [
        [
            {"Tenant": tenant, "Version": version, "Deleted": 1, "job": job, "trial": trial}.get(c, _empty(c))
            for c in columns
        ]
        for job, trial in gone
    ]
    if rows:
        client.insert("trial_rows", rows, column_names=columns)
    log.debug("derived %d trial rows again (%d gone) for %d changed names", len(loaded), len(gone), len(keys))
    return {t.facts.job for t in loaded} | {job for job, _ in gone}


def _empty(column: str) -> object:
    return {"Facts": "", "Row": "", "is_running": False, "n_events": 0, "counts": {}}.get(column)


def _stored_row(tenant: str, version: int, trial: LoadedTrial, columns: list[str]) -> list[object]:
    """The row the API answers, its fields (else the facts') as the table's columns by the same names."""
    facts = {c: getattr(trial.facts, c) for c in columns if hasattr(trial.facts, c)}
    return _stored_values(tenant, version, trial_row(trial), columns, facts, Facts=facts_json(trial.facts))


def _stored_values(
    tenant: str, version: int, row: dict, columns: list[str], other: dict, **extra: object
) -> list[object]:
    """A stored row: the API row's fields as the table's columns by the same names (a valued field's value),
    else `other`'s, and the API row itself as Row."""
    values = {
        "Tenant": tenant,
        "Version": version,
        "Deleted": 0,
        "Row": json.dumps(row, separators=(",", ":")),
        **extra,
    }
    for column in columns:
        if column not in values:
            value = row[column] if column in row else other[column]
            value = value["value"] if isinstance(value, dict) and "provenance" in value else value
            values[column] = _empty(column) if value is None else value
    return [values[c] for c in columns]


class TrialRowsKeeper:
    """Resolves the changed trials' agent events and derives their trial and job rows again, on a thread and a
    connection of its own, whenever woken (after each commit, and once on start for a store with trials or jobs
    not derived yet), so every reader selects fresh rows.

    Each wake is a generation; `caught_up` waits until a refresh that began after the newest wake has ended:
    a reader that waited for the commits of what was acknowledged before it (harborlight/read/fresh_reads.py),
    then for the keeper, reads rows resolved from all of it."""

    def __init__(self, store: Store) -> None:
        self._store = store.another_connection()
        self._wake = threading.Event()
        self._hurry = threading.Event()  # a reader waits: no pause before the next refresh
        self._stopping = False
        self._checked = False  # rows of older code and jobs without rows derived, once after the start
        self._generation = threading.Condition()
        self._asked = 0  # wakes so far
        self._done = 0  # the wakes the last finished refresh began after
        self._began: float | None = None  # when the running pass began (monotonic)
        self._failure = ""  # why the last pass failed ('' when it did not)
        self._thread = threading.Thread(target=self._run, name="trial-rows", daemon=True)

    def start(self) -> "TrialRowsKeeper":
        self._thread.start()
        self.wake()
        return self

    def stop(self) -> None:
        """Stops the thread; what was committed since its last pass is resolved first, so a store left by a clean
        stop reads the same without a keeper (the CLI's --data-dir)."""
        self._stopping = True
        self._hurry.set()
        self._wake.set()
        self._thread.join()
        if self._done < self._asked:
            try:
                refresh(self._store.client)
            except Exception:  # the next start's keeper derives what is still stale
                log.exception("could not resolve the last commits before stopping")
        with self._generation:
            self._generation.notify_all()
        if self._store.embedded:
            self._store.client.close()

    def wake(self, *_: object) -> None:
        with self._generation:
            self._asked += 1
        self._wake.set()

    def resolve_now(self, timeout: float) -> bool:
        """Wakes the keeper and waits for the pass (`caught_up`): whatever was committed before is resolved."""
        self.wake()
        return self.caught_up(timeout)

    def caught_up(self, timeout: float) -> bool:
        """Waits until a refresh that began after every wake so far has ended (or the keeper stopped); False
        when `timeout` seconds passed first."""
        deadline = time.monotonic() + timeout
        with self._generation:
            target = self._asked
            while self._done < target and not self._stopping:
                self._hurry.set()
                self._wake.set()  # (a pass that failed is tried again for whoever waits)
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self._generation.wait(left)
        return True

    def activity(self) -> str:
        """What the keeper is doing, for a reader that waited in vain: how long its pass has run and the line of
        ours it is at, or why its last pass failed."""
        began, frame = self._began, sys._current_frames().get(self._thread.ident or 0)
        if began is None or frame is None:
            return f"idle; its last pass failed: {self._failure}" if self._failure else "idle"
        ours = [f for f in traceback.extract_stack(frame) if "/harborlight/" in f.filename]
        at = ""
        if ours:
            where = ours[-1]
            at = f", at harborlight/{where.filename.rsplit('/harborlight/', 1)[-1]}:{where.lineno} {where.name}"
        return f"its pass has run {time.monotonic() - began:.0f} s{at}"

    def _run(self) -> None:
        failures = 0  # passes failed in a row
        while True:
            self._wake.wait()
            if self._stopping:
                return
            self._wake.clear()
            with self._generation:
                began_after = self._asked
            began = self._began = time.monotonic()
            try:
                # Once after the start: rows derived by older code, and jobs without a row, are derived.
                client = self._store.client
                resolved_anew = not self._checked and rule_changed(client)
                if not self._checked and (resolved_anew or rows_reshaped(client)):
                    log.info("the stored trial rows or resolved events are of another version: deriving them again")
                    restale_all(client)
                refresh(client)
                if not self._checked:
                    derive_underived_jobs(client)
                    if resolved_anew:
                        mark_rule(client)
                        for table in RESOLVED_TABLES:  # every row was written again
                            self._store.compact(table)
                    self._checked = True
                with self._generation:
                    self._done = began_after
                    self._generation.notify_all()
                self._failure = ""
                failures = 0
            except Exception as exc:
                # Tried again by itself, not at the next commit's wake: what was committed stays unresolved
                # until a pass succeeds, and a reader waiting for it would otherwise wait out its timeout.
                self._failure = f"{type(exc).__name__}: {exc}"
                failures += 1
                if failures == 1:
                    log.exception("could not derive the changed trials' rows; trying again")
                else:  # its traceback was logged with the first
                    log.error("could not derive the changed trials' rows (%d failures): %s", failures, brief(exc))
                self._wake.set()
            self._began = None
            # While trials keep changing, a refresh follows the last one only after a pause of REST times its
            # length, so it takes the store at most 1 / (1 + REST) of the time the commits also need; the
            # commits' wakes meanwhile coalesce into one refresh. A reader waiting cuts the pause short. Failing
            # passes back off: from the second failure in a row at least FAILED_PAUSE_SECONDS, doubled after each.
            pause = REST * (time.monotonic() - began)
            if failures > 1:
                pause = max(pause, FAILED_PAUSE_SECONDS * 2 ** (failures - 2))
            self._hurry.wait(min(pause, MAX_PAUSE_SECONDS))
            self._hurry.clear()
