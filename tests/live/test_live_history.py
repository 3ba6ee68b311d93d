"""The live feed's history read a batch of trials at a time (harborlight/api/live/history.py) is what one
statement over the whole job gives: the same rows, twins resolved the same way, in the same order,
whatever the batches; over /api/live, the events those rows mean."""

import pytest

from harborlight.api.live import history as live_history
from harborlight.api.live.events import COLUMNS, LiveRow, to_events
from harborlight.api.live.history import TrialBatch, plan, read_history, settle
from harborlight.read.statements.stored_trials import verdicts
from harborlight.summaries.refresh import refresh
from tests.live.test_live import SseClient
from tests.live.twin_job import send_twin_job, trial_names

# The whole job's resolved events in one statement (the keeper resolved them: twins dropped, named after trials).
_WHOLE_JOB = f"""SELECT {COLUMNS} FROM resolved_events FINAL
WHERE JobKey = {{job:String}} AND ({{tenant:String}} = '' OR Tenant = {{tenant:String}}) AND NOT OuterTelling
ORDER BY end_ts, EventId"""


@pytest.fixture(scope="module")
def twin_job(server) -> str:
    import uuid

    job = f"history-{uuid.uuid4().hex[:12]}"
    send_twin_job(server, job)
    return job


def _whole_job(server, job: str) -> list[LiveRow]:
    server.caught_up()  # stored and resolved
    rows = server.store.client.query(_WHOLE_JOB, parameters={"job": job, "tenant": ""}).result_rows
    return [LiveRow(*r) for r in rows]


def test_the_twin_job_has_twins_in_several_trials_and_rows_without_a_trial(server, twin_job):
    """What the tests below rely on, checked on the store rather than assumed."""
    rows = _whole_job(server, twin_job)
    stored = server.sql("SELECT count() FROM agent_events WHERE JobName = {j:String}", j=twin_job)[0][0]
    assert len(rows) < stored  # twins were dropped
    assert len({r.trial for r in rows if r.twin_id}) >= 3
    assert {r.trial for r in rows} == {*trial_names(twin_job), None}
    # The trials overlap in time: the feed's order interleaves them.
    order = [r.trial for r in rows if r.trial]
    assert sum(a != b for a, b in zip(order, order[1:], strict=False)) > len(trial_names(twin_job))


@pytest.mark.parametrize(
    "first, most",
    [(1, 1), (30, 60), (live_history.FIRST_ROWS, live_history.MOST_ROWS)],
    ids=["a trial per batch", "a few trials per batch", "one batch"],
)
def test_the_history_read_in_batches_is_the_whole_job_statement(server, twin_job, monkeypatch, first, most):
    monkeypatch.setattr(live_history, "FIRST_ROWS", first)
    monkeypatch.setattr(live_history, "MOST_ROWS", most)
    lists = list(read_history(server.store.client, twin_job, ""))
    if first == 1:
        assert len(lists) > 1  # rows were shown before the whole job was read
    assert [row for rows in lists for row in rows] == _whole_job(server, twin_job)


def test_a_history_over_sse_is_the_events_of_the_whole_job_statement(server, twin_job, monkeypatch):
    monkeypatch.setattr(live_history, "FIRST_ROWS", 1)
    monkeypatch.setattr(live_history, "MOST_ROWS", 1)
    started: set[str] = set()
    rows = _whole_job(server, twin_job)
    refresh(server.store.client)
    told = verdicts(
        server.store.client, "", sorted({r.trial for r in rows if r.trial})
    )  # a trial's end tells its row's
    expected = [e.as_json() for row in rows for e in to_events(row, started, told)]
    watcher = SseClient(f"{server.http_url}/api/live?job={twin_job}&history=true", len(expected))
    watcher.wait_for(len(expected), 60)  # a statement per trial: slow on a busy machine
    watcher.close()
    assert [(kind, data) for _, kind, data in watcher.events] == [(e["type"], e) for e in expected]


def test_every_trial_is_in_exactly_one_batch_in_order():
    trials = [("a", 10, 5), (None, 12, 1), ("b", 12, 30), ("c", 40, 2), ("d", 41, 2), ("e", 90, 70), ("f", 95, 1)]
    for first, most in [(1, 1), (1, 4), (6, 6), (3, 100), (1000, 1000)]:
        batches = plan(trials, first, most)
        names = [name for batch in batches for name in batch.trials]
        assert names == [t[0] for t in trials if t[0] is not None]
        assert [b.unnamed for b in batches].count(True) == 1
        # A batch's bound is the earliest first end of the trials after it: no later row ends before it.
        first_end = {name: end for name, end, _ in trials}
        for i, batch in enumerate(batches):
            later = [first_end[n] for b in batches[i + 1 :] for n in (*b.trials, *[None] * b.unnamed)]
            assert batch.final_before == (min(later) if later else None)


def test_batches_grow_from_first_to_most_rows():
    trials = [(f"t{i}", i, 10) for i in range(40)]
    assert [len(b.trials) for b in plan(trials, 10, 160)] == [1, 4, 16, 16, 3]
    assert plan([("only", 5, 3)], 10, 40) == [TrialBatch(("only",), False, None)]


def _row(end: int, event_id: str) -> LiveRow:
    return LiveRow(
        event_id,
        "tool",
        "t",
        "job",
        "trial",
        None,
        None,
        None,
        end,
        end,
        None,
        None,
        None,
        None,
        None,
        None,
        None,
        "",
        "",
    )


def test_rows_before_the_bound_are_shown_merged_in_order_and_the_rest_wait():
    waiting = [_row(5, "b"), _row(20, "a")]
    batch = [_row(5, "a"), _row(9, "z"), _row(10, "c"), _row(30, "d")]
    final, still = settle(waiting, batch, 10)
    assert final == [_row(5, "a"), _row(5, "b"), _row(9, "z")]
    assert still == [_row(10, "c"), _row(20, "a"), _row(30, "d")]  # a row at the bound may tie with a later one
    assert settle(still, [], None) == (still, [])
