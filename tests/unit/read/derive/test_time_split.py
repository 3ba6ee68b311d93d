"""Where the agent phase went, from the store's measures of a trial's calls: the window, the split into
model, tool and gap time, what is null and why, the longest calls, and the job's sums. (The unions
themselves are the engine's: tests/query/test_time_api.py checks them against a numpy timeline.)"""

from harborlight.read.derive.critical_path import SpanNode
from harborlight.read.derive.records import Interval
from harborlight.read.derive.time_split import (
    NS,
    UNBOUNDED,
    CallTotals,
    agent_window,
    clip_bounds,
    derive_time_split,
    longest_calls,
    sum_time_splits,
)

T0 = 1_764_547_200  # UNIX seconds
AGENT = Interval(T0, T0 + 100.0)


def s(seconds: float) -> int:
    return T0 * NS + round(seconds * NS)


def totals(model: float, busy: float, untimed: int = 0, by_model=None, extent=(10, 70), **kw) -> CallTotals:
    return CallTotals(
        round(model * NS),
        round(busy * NS),
        {m: round(v * NS) for m, v in (by_model or {}).items()},
        n_timed=kw.pop("timed", 4),
        n_untimed=untimed,
        first_start=s(extent[0]),
        last_end=s(extent[1]),
        **kw,
    )


def test_the_window_splits_into_model_tool_and_gap():
    split = derive_time_split(totals(20, 50, by_model={"gpt-5": 10, "haiku": 15}), AGENT)
    assert split.agent_window_s.value == 100.0 and split.agent_window_s.provenance == "measured"
    assert (split.model_time_s.value, split.tool_time_s.value, split.gap_time_s.value) == (20.0, 30.0, 50.0)
    assert split.model_time_by_model.value == {"gpt-5": 10.0, "haiku": 15.0}  # models overlap: 25 > 20


def test_the_store_clips_to_the_agent_phase_open_ended_when_it_is_not_closed():
    assert clip_bounds(AGENT) == (T0 * NS, (T0 + 100) * NS)
    assert clip_bounds(Interval(T0, None)) == (T0 * NS, UNBOUNDED[1])
    assert clip_bounds(None) == clip_bounds(Interval(None, None)) == UNBOUNDED


def test_a_call_without_a_clock_leaves_the_gap_unknown_never_zero():
    split = derive_time_split(totals(10, 10, untimed=1, timed=1), AGENT)
    assert split.model_time_s.value == 10.0 and split.model_time_s.note == "1 of 2 calls have no clock: not counted"
    assert split.gap_time_s.value is None and split.gap_time_s.provenance == "unavailable"
    assert (split.n_timed_calls.value, split.n_untimed_calls.value) == (1, 1)
    nothing = derive_time_split(CallTotals(n_untimed=1), AGENT)
    assert nothing.model_time_s.value is None and nothing.model_time_s.note == "no call has a clock (start and end)"
    none = derive_time_split(None, AGENT)
    assert none.tool_time_s.note == "no model or tool calls recorded" and none.agent_window_s.value == 100.0


def test_without_the_harness_span_the_window_is_the_calls_extent():
    split = derive_time_split(totals(10, 15, extent=(10, 30)), None)
    assert split.agent_window_s.value == 20.0 and split.agent_window_s.provenance == "derived"
    assert "calls' extent" in split.agent_window_s.note and split.gap_time_s.value == 5.0
    running = agent_window(Interval(T0, None), totals(10, 10, extent=(10, 20)))
    assert running == ((T0 * NS, (T0 + 20) * NS), "harbor.agent_execution still open: the split so far")


def test_rebuilt_clocks_make_the_split_inferred():
    assert derive_time_split(totals(10, 10, inferred=True), AGENT).model_time_s.provenance == "inferred"


def test_longest_calls_come_from_the_tree_longest_first():
    tree = [
        SpanNode(
            "session",
            "agent",
            s(0),
            s(90),
            (
                SpanNode("llm_request", "gpt-5", s(1), s(4)),
                SpanNode("group", "bash", s(5), s(35), (SpanNode("tool", "bash", s(5), s(35)),)),
                SpanNode("tool", "read", s(40), s(41)),
                SpanNode("tool", "write", s(42), None),
            ),
        )
    ]
    calls = longest_calls(tree, s(0)).value
    assert [(c.name, c.offset_s, c.duration_s) for c in calls] == [
        ("bash", 5.0, 30.0),
        ("gpt-5", 1.0, 3.0),
        ("read", 40.0, 1.0),
    ]


def test_a_job_sums_its_trials_and_says_how_many_had_each_part():
    a = derive_time_split(totals(10, 20, by_model={"gpt-5": 10}), AGENT)
    b = derive_time_split(totals(5, 5, untimed=1, by_model={"haiku": 5}), AGENT)
    job = sum_time_splits([a, b])
    assert job.n_trials.value == 2 and job.agent_window_s.value == 200.0
    assert job.model_time_s.value == 15.0 and job.tool_time_s.value == 10.0
    assert job.gap_time_s.value == 80.0 and job.gap_time_s.note == "1 of 2 trials have a known gap"
    assert job.model_time_by_model.value == {"gpt-5": 10.0, "haiku": 5.0}
    assert sum_time_splits([]).model_time_s.value is None
