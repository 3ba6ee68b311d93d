"""Behaviour metrics over tool calls and model calls."""

from harborlight.read.derive.behavior import derive_behavior
from harborlight.read.derive.records import AgentCall, ModelCall
from harborlight.read.derive.records import ToolCategory as C
from tests.unit.read.derive.builders import T0


def call(i, name, cat, *targets, ts=None, failed=None, args=None):
    return AgentCall(index=i, name=name, category=cat, timestamp=ts, targets=targets, failed=failed, args_key=args)


SESSION = (
    call(0, "grep", C.SEARCH, args="foo", ts=T0 + 1),
    call(1, "read_file", C.READ, "/testbed/a.py", ts=T0 + 2),
    call(2, "read_file", C.READ, "/testbed/a.py", ts=T0 + 3),  # redundant
    call(3, "bash", C.EXECUTE, args="pytest", failed=True, ts=T0 + 4),
    call(4, "bash", C.EXECUTE, args="pytest", failed=True, ts=T0 + 5),  # repeats a failed call
    call(5, "str_replace", C.EDIT, "/testbed/a.py", ts=T0 + 10),
    call(6, "read_file", C.READ, "/testbed/a.py", ts=T0 + 11),  # not redundant: edited since
    call(7, "bash", C.EXECUTE, args="pytest", failed=False, ts=T0 + 12),  # edit -> run: a cycle
    call(8, "str_replace", C.EDIT, "/testbed/b.py", ts=T0 + 13),
    call(9, "grep", C.SEARCH, args="foo", ts=T0 + 14),  # redundant (b.py edit does not touch it)
)


def test_tool_mix_by_category_and_name():
    b = derive_behavior(SESSION)
    assert b.category_freq.value == {"edit": 2, "execute": 3, "read": 3, "search": 2}
    assert b.name_freq.value["execute"] == {"bash": 3}


def test_conduct_counts():
    b = derive_behavior(SESSION)
    assert b.files_touched.value == ("a.py", "b.py")
    assert b.n_failed_calls.value == 2
    assert b.first_edit_call.value == 5
    assert b.n_redundant_reads.value == 2
    assert b.n_repeated_failed_calls.value == 2  # calls 4 and 7 repeat the failed pytest
    assert b.edit_test_cycles.value == 1
    assert b.exploration_per_edit.value == 2.5


def test_time_to_first_edit_with_a_usable_clock():
    b = derive_behavior(SESSION, agent_start=T0)
    assert b.has_step_clock.value is True and b.time_to_first_edit.value == 10.0


def test_flat_step_clock_gives_null_not_zero():
    flat = tuple(AgentCall(c.index, c.name, c.category, timestamp=T0, targets=c.targets) for c in SESSION)
    b = derive_behavior(flat)
    assert b.has_step_clock.value is False
    assert b.time_to_first_edit.value is None and b.time_to_first_edit.note == "flat step clock"
    assert b.first_edit_call.value == 5


def test_no_edits_and_no_failure_signal_are_null():
    b = derive_behavior((call(0, "ls", C.READ), call(1, "cat", C.READ)))
    assert b.first_edit_call.value is None and b.exploration_per_edit.value is None
    assert b.n_failed_calls.value is None and b.n_repeated_failed_calls.value is None


def test_no_tool_telemetry_is_unavailable_not_zero_calls():
    b = derive_behavior((), calls_recorded=False)
    assert b.category_freq.value is None and b.n_redundant_reads.value is None
    assert derive_behavior(()).category_freq.value == {}


def test_tokens_cache_ratio_and_reasoning():
    calls = (
        ModelCall(T0 + 2, input_tokens=1000, cached_tokens=0, reasoning_tokens=None),
        ModelCall(T0 + 1, input_tokens=1000, cached_tokens=800, reasoning_tokens=50),
        ModelCall(T0 + 3, input_tokens=2000, cached_tokens=1200),
    )
    b = derive_behavior((), calls)
    assert [p.cached_tokens for p in b.token_series.value] == [800, 0, 1200]
    assert b.cache_ratio.value == 0.5
    assert b.total_reasoning_tokens.value == 50


def test_reasoning_not_reported_is_null_not_zero():
    b = derive_behavior((), (ModelCall(T0, input_tokens=10),))
    assert b.total_reasoning_tokens.value is None and b.total_reasoning_tokens.note == "not reported"
    assert b.cache_ratio.value is None


def test_files_touched_outside_the_known_workspaces_are_as_the_agent_named_them():
    b = derive_behavior(
        (
            call(0, "Write", C.EDIT, "/tmp/run-1/hello.txt"),
            call(1, "Edit", C.EDIT, "src/b.py"),
            call(2, "Edit", C.EDIT, "/app/a.py"),
        )
    )
    assert b.files_touched.value == ("/tmp/run-1/hello.txt", "a.py", "src/b.py")
