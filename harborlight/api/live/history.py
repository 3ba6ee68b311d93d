"""A job's stored events for a live watcher who asks for history: the rows `/api/live?history=true`
replays, in the feed's order (end time, then EventId), read a batch of trials at a time from the resolved events
(harborlight/read/statements/resolved_sql.py: each call once, named after its trial).

Why batches: a large job's rows (1,000 trials, 1M agent events) take seconds to read and order, and nothing could
be shown before they are. Trials are taken in the order of their first row's end: once a batch is read, its rows
that end before the next batch's first trial's first row can come from no later batch, so they are final and
shown while the rest is read. Batches grow (FIRST_ROWS agent events, then four times as many each time, up to
MOST_ROWS): the first rows come in a fraction of a second, and a large job pays a few statements, not one per
trial.
"""

import heapq
from bisect import bisect_left
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from harborlight.api.live.events import COLUMNS, LiveRow

FIRST_ROWS = 2_000
GROWTH = 4
MOST_ROWS = 512_000

_JOB = "JobKey = {job:String} AND ({tenant:String} = '' OR Tenant = {tenant:String}) AND NOT OuterTelling"
_END = "toUnixTimestamp64Nano(coalesce(EndTimestamp, Timestamp))"  # the `end_ts` of the columns
TRIALS = f"""
SELECT TrialName, min({_END}) AS first_end, count() FROM resolved_events FINAL WHERE {_JOB}
GROUP BY TrialName ORDER BY first_end, TrialName"""
# A batch of whole trials, and when `unnamed`, the job's rows without a trial name.
BATCH_SQL = f"""
SELECT {COLUMNS} FROM resolved_events FINAL
WHERE {_JOB}
  AND (TrialKey IN {{trials:Array(String)}} AND TrialName IS NOT NULL OR ({{unnamed:Bool}} AND TrialName IS NULL))
ORDER BY end_ts, EventId"""


@dataclass(frozen=True)
class TrialBatch:
    trials: tuple[str, ...]
    unnamed: bool  # also the job's rows without a trial name
    final_before: int | None  # once read, rows ending before this (ns) are final; None: all rows are


def plan(
    trials: Sequence[tuple[str | None, int, int]], first: int = FIRST_ROWS, most: int = MOST_ROWS
) -> list[TrialBatch]:
    """Consecutive batches of `trials` ((name, first row's end, rows), in first-end order), each
    closed once it holds `first` rows, then GROWTH times as many each time, up to `most`. Every trial
    is in exactly one batch."""
    batches: list[TrialBatch] = []
    names: list[str] = []
    unnamed, rows, target = False, 0, first
    for i, (name, _, n) in enumerate(trials):
        if name is None:
            unnamed = True
        else:
            names.append(name)
        rows += n
        last = i == len(trials) - 1
        if rows >= target or last:
            batches.append(TrialBatch(tuple(names), unnamed, None if last else trials[i + 1][1]))
            names, unnamed, rows, target = [], False, 0, min(target * GROWTH, most)
    return batches


def _order(row: LiveRow) -> tuple[int, str]:
    return row.end_unix_nano, row.event_id  # ORDER BY end_ts, EventId (UTF-8 sorts as its code points)


def settle(
    waiting: list[LiveRow], batch: list[LiveRow], final_before: int | None
) -> tuple[list[LiveRow], list[LiveRow]]:
    """(rows now final, in order; rows still waiting) from the rows waiting and a batch's rows, each in order."""
    merged = list(heapq.merge(waiting, batch, key=_order))
    if final_before is None:
        return merged, []
    cut = bisect_left(merged, final_before, key=lambda row: row.end_unix_nano)
    return merged[:cut], merged[cut:]


def read_rows(client, sql: str, parameters: dict) -> list[LiveRow]:
    return list(map(LiveRow._make, client.query(sql, parameters=parameters).result_rows))


def read_history(client, job: str, tenant: str) -> Iterator[list[LiveRow]]:
    """The job's rows in order, in lists as they become final (blocking: run it off the event loop).
    Trials that first land after it began reach a watcher as live rows instead."""
    params = {"job": job, "tenant": tenant}
    waiting: list[LiveRow] = []
    for batch in plan(client.query(TRIALS, parameters=params).result_rows, FIRST_ROWS, MOST_ROWS):
        batch_params = {**params, "trials": list(batch.trials), "unnamed": batch.unnamed}
        final, waiting = settle(waiting, read_rows(client, BATCH_SQL, batch_params), batch.final_before)
        if final:
            yield final
