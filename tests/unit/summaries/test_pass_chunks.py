"""The keeper resolves changed trials in statements bounded by names and by events (harborlight/summaries/refresh.py
`chunks`): 100 trials of 2,400 events each in one statement needed more than the engine's 1 GiB of a default
server, and the pass failed every time it was tried."""

from harborlight.summaries.refresh import CHUNK, CHUNK_EVENTS, chunks


def test_trials_are_resolved_in_statements_of_bounded_events():
    keys = [(f"trial-{i}", 2_400) for i in range(100)]
    runs = chunks(keys)
    assert [key for run in runs for key in run] == keys  # every trial, once, in order
    assert all(sum(n for _, n in run) <= CHUNK_EVENTS for run in runs)
    assert len(runs) == -(-100 * 2_400 // (CHUNK_EVENTS // 2_400 * 2_400))


def test_many_small_trials_are_bounded_by_names():
    keys = [(f"t{i}", 1) for i in range(CHUNK * 2 + 1)]
    assert [len(run) for run in chunks(keys)] == [CHUNK, CHUNK, 1]


def test_a_trial_larger_than_the_bound_is_a_statement_of_its_own():
    keys = [("small", 10), ("huge", CHUNK_EVENTS * 3), ("after", 10)]
    assert chunks(keys) == [[("small", 10)], [("huge", CHUNK_EVENTS * 3)], [("after", 10)]]
    assert chunks([]) == []
