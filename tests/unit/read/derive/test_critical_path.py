"""The critical path of a trial's agent phase: hand-worked trees (a sub-agent, parallel tools), and on
random trees the properties that make it a path — its steps tile the window, each instant is charged
to a span open at that instant, and a span is charged only while none of its children is."""

from hypothesis import given, settings
from hypothesis import strategies as st

from harborlight.read.derive.critical_path import IDLE, MAX_STEPS, SpanNode, derive_critical_path

S = 1_000_000_000  # nanoseconds


def span(kind, name, a, b, *children):
    return SpanNode(kind, name, a * S, None if b is None else b * S, tuple(children))


def steps(path):
    return [(st.kind, st.name, st.offset_s, st.duration_s, st.in_subagent) for st in path.value.steps]


def test_the_main_agent_waits_on_the_sub_agent_its_tool_spawned():
    roots = [
        span(
            "session",
            "agent",
            0,
            100,
            span("llm_request", "opus", 0, 10),
            span(
                "tool",
                "Task",
                12,
                80,
                span(
                    "subagent", "explorer", 13, 79, span("llm_request", "haiku", 14, 30), span("tool", "grep", 31, 40)
                ),
            ),
            span("llm_request", "opus", 82, 95),
        )
    ]
    path = derive_critical_path(roots, (0, 100 * S))
    assert steps(path) == [
        ("llm_request", "opus", 0, 10, False),
        ("session", "agent", 10, 2, False),
        ("tool", "Task", 12, 1, False),
        ("subagent", "explorer", 13, 1, True),
        ("llm_request", "haiku", 14, 16, True),
        ("subagent", "explorer", 30, 1, True),
        ("tool", "grep", 31, 9, True),
        ("subagent", "explorer", 40, 39, True),
        ("tool", "Task", 79, 1, False),
        ("session", "agent", 80, 2, False),
        ("llm_request", "opus", 82, 13, False),
        ("session", "agent", 95, 5, False),
    ]
    assert path.value.by_kind == {"llm_request": 39, "session": 9, "subagent": 41, "tool": 11}
    assert path.value.in_subagents_s == 66 and path.value.length_s == 100


def test_of_parallel_calls_the_one_that_finished_last_is_on_the_path():
    roots = [span("tool", "fast", 0, 5), span("tool", "slow", 1, 9), span("llm_request", "m", 10, 12)]
    path = derive_critical_path(roots, (0, 12 * S))
    # before `slow` started, `fast` was what ran: it is on the path until then, not its whole 5 s
    assert steps(path) == [
        ("tool", "fast", 0, 1, False),
        ("tool", "slow", 1, 8, False),
        (IDLE, "(no agent span open)", 9, 1, False),
        ("llm_request", "m", 10, 2, False),
    ]


def test_a_span_without_a_clock_is_passed_through_to_its_children():
    roots = [span("session", "agent", 0, None, span("llm_request", "m", 2, 4))]
    assert steps(derive_critical_path(roots, (0, 5 * S))) == [
        (IDLE, "(no agent span open)", 0, 2, False),
        ("llm_request", "m", 2, 2, False),
        (IDLE, "(no agent span open)", 4, 1, False),
    ]


def test_no_window_or_no_clock_is_null_with_the_reason():
    assert derive_critical_path([span("tool", "t", 0, 1)], None).note.startswith("no agent window")
    assert derive_critical_path([span("tool", "t", 0, None)], (0, S)).note == "no agent span has a clock"


def test_a_long_path_lists_its_first_steps_and_says_so():
    roots = [span("tool", f"t{i}", 2 * i, 2 * i + 1) for i in range(MAX_STEPS)]
    path = derive_critical_path(roots, (0, 2 * MAX_STEPS * S))
    assert path.value.n_steps == 2 * MAX_STEPS and len(path.value.steps) == MAX_STEPS
    assert path.note == f"{2 * MAX_STEPS} steps: the first {MAX_STEPS} listed"


@st.composite
def trees(draw, depth=0, lo=0, hi=100, prefix="s"):
    """Spans inside [lo, hi] seconds (children may poke out of their parent: clocks disagree), each
    named by its place in the tree."""
    out = []
    for i in range(draw(st.integers(0, 3 if depth < 3 else 0))):
        a = draw(st.integers(lo - 2, hi))
        b = draw(st.integers(a, hi + 2))
        kids = draw(trees(depth=depth + 1, lo=a, hi=b, prefix=f"{prefix}.{i}"))
        out.append(
            SpanNode(
                draw(st.sampled_from(["tool", "llm_request", "subagent"])), f"{prefix}.{i}", a * S, b * S, tuple(kids)
            )
        )
    return out


def _open_at(nodes, t, path=()):
    """Every (span, its ancestors) open at instant t."""
    for n in nodes:
        if n.start <= t < n.end:
            yield n, path
        yield from _open_at(n.children, t, (*path, n))


@settings(max_examples=300, deadline=None)
@given(trees(), st.integers(0, 40), st.integers(60, 120))
def test_the_steps_tile_the_window_and_each_is_charged_to_an_open_span(roots, start, end):
    path = derive_critical_path(roots, (start * S, end * S))
    if path.value is None:
        return
    p = path.value
    assert p.length_s == end - start and sum(st.duration_s for st in p.steps) == p.length_s
    offset = 0
    for step in p.steps:
        assert step.offset_s == offset and step.duration_s > 0
        offset += step.duration_s
        middle = (start + step.offset_s + step.duration_s / 2) * S
        if step.kind == IDLE:
            assert not any(r.start <= middle < r.end for r in roots), f"{step}: a span was open"
            continue
        charged = [
            (n, up)
            for n, up in _open_at(roots, middle)
            if n.name == step.name and n.kind == step.kind and not any(c.start <= middle < c.end for c in n.children)
        ]
        assert charged, f"{step} is charged to a span that was not open then, or whose child was"
        assert step.in_subagent == any(any(a.kind == "subagent" for a in (*up, n)) for n, up in charged)
