"""Where the agent phase went: the union of call intervals (checked against a tick-by-tick timeline
in numpy), the split of the window into model, tool and gap time, and the job's sums."""

import random

import numpy as np
import pytest

from query.derive.critical_path import SpanNode
from query.derive.records import Interval
from query.derive.time_split import (
    NS, TimedCall, derive_time_split, longest_calls, sum_time_splits, union_length,
)

T0 = 1_764_547_200 * NS  # a realistic UNIX time: a float of seconds would blur these durations


def s(seconds: float) -> int:
    return T0 + round(seconds * NS)


def model(a: float, b: float | None, name: str = "gpt-5", **kw) -> TimedCall:
    return TimedCall("llm_request", name, s(a), None if b is None else s(b), **kw)


def tool(a: float, b: float | None) -> TimedCall:
    return TimedCall("tool", None, s(a), None if b is None else s(b))


AGENT = Interval(T0 / NS, T0 / NS + 100.0)


def test_union_length_counts_overlapping_time_once():
    rng = random.Random(3)
    for _ in range(200):
        intervals = [(a, a + rng.randint(0, 80)) for a in (rng.randint(0, 900) for _ in range(rng.randint(0, 12)))]
        lo, hi = sorted(rng.sample(range(0, 1001), 2))
        timeline = np.zeros(1000, dtype=bool)  # tick t covers [t, t + 1)
        for a, b in intervals:
            timeline[a:b] = True
        assert union_length(intervals, (lo, hi)) == int(timeline[lo:hi].sum())


def test_the_window_splits_into_model_tool_and_gap_without_double_counting():
    calls = [model(10, 20), model(15, 25, "haiku"),  # two model calls overlapping: 15 s of model time
             tool(30, 40), tool(35, 45),  # parallel tools: 15 s
             tool(50, 70), model(55, 60, "haiku")]  # a sub-agent's model call inside a tool call: model time
    split = derive_time_split(calls, AGENT)
    assert split.agent_window_s.value == 100.0 and split.agent_window_s.provenance == "measured"
    assert split.model_time_s.value == 20.0  # 10-25, 55-60
    assert split.tool_time_s.value == 30.0  # 30-45, 50-55, 60-70
    assert split.gap_time_s.value == 50.0
    assert split.model_time_s.value + split.tool_time_s.value + split.gap_time_s.value == 100.0
    assert split.model_time_by_model.value == {"gpt-5": 10.0, "haiku": 15.0}  # haiku: 15-25 and 55-60


def test_calls_outside_the_agent_phase_are_clipped_to_it():
    split = derive_time_split([model(-5, 5), tool(95, 120)], AGENT)
    assert (split.model_time_s.value, split.tool_time_s.value, split.gap_time_s.value) == (5.0, 5.0, 90.0)


def test_a_call_without_a_clock_leaves_the_gap_unknown_never_zero():
    split = derive_time_split([model(10, 20), tool(30, None)], AGENT)
    assert split.model_time_s.value == 10.0 and split.model_time_s.note == "1 of 2 calls have no clock: not counted"
    assert split.gap_time_s.value is None and split.gap_time_s.provenance == "unavailable"
    assert split.n_untimed_calls.value == 1 and split.n_timed_calls.value == 1
    nothing = derive_time_split([tool(30, None)], AGENT)
    assert nothing.model_time_s.value is None and nothing.model_time_s.note == "no call has a clock (start and end)"
    assert derive_time_split([], AGENT).tool_time_s.note == "no model or tool calls recorded"


def test_without_the_harness_span_the_window_is_the_calls_extent():
    split = derive_time_split([model(10, 20), tool(25, 30)], None)
    assert split.agent_window_s.value == 20.0 and split.agent_window_s.provenance == "derived"
    assert "calls' extent" in split.agent_window_s.note and split.gap_time_s.value == 5.0
    running = derive_time_split([model(10, 20)], Interval(T0 / NS, None))
    assert running.agent_window_s.value == 20.0 and "still open" in running.agent_window_s.note


def test_rebuilt_clocks_make_the_split_inferred():
    split = derive_time_split([model(10, 20, inferred=True)], AGENT)
    assert split.model_time_s.provenance == "inferred"


def test_longest_calls_come_from_the_tree_longest_first():
    tree = [SpanNode("session", "agent", s(0), s(90), (
        SpanNode("llm_request", "gpt-5", s(1), s(4)),
        SpanNode("group", "bash", s(5), s(35), (SpanNode("tool", "bash", s(5), s(35)),)),
        SpanNode("tool", "read", s(40), s(41)),
        SpanNode("tool", "write", s(42), None)))]
    calls = longest_calls(tree, s(0)).value
    assert [(c.name, c.offset_s, c.duration_s) for c in calls] == [("bash", 5.0, 30.0), ("gpt-5", 1.0, 3.0),
                                                                  ("read", 40.0, 1.0)]


def test_a_job_sums_its_trials_and_says_how_many_had_each_part():
    a = derive_time_split([model(10, 20), tool(30, 40)], AGENT)
    b = derive_time_split([model(0, 5, "haiku"), tool(6, None)], AGENT)
    job = sum_time_splits([a, b])
    assert job.n_trials.value == 2 and job.agent_window_s.value == 200.0
    assert job.model_time_s.value == 15.0 and job.tool_time_s.value == 10.0
    assert job.gap_time_s.value == 80.0 and job.gap_time_s.note == "1 of 2 trials have a known gap"
    assert job.model_time_by_model.value == {"gpt-5": 10.0, "haiku": 5.0}
    assert sum_time_splits([]).model_time_s.value is None
