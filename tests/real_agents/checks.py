"""Each answer harborlight gives about a real agent's run, checked against what the fake provider served.

One function per aspect a user reads (model calls, tokens, cost, tools, behaviour, prompt, answer, the
trial's model and agent, the trace tree, the trajectory, Harbor's export), so a known fault marks exactly
the aspect it breaks (tests/real_agents/faults.py).
"""

from collections import Counter
from dataclasses import asdict

import atif
import pytest
from harbor.models.trajectories import Trajectory as HarborTrajectory
from harbor.utils.trajectory_validator import TrajectoryValidator

from tests.importers.exported import validate_job
from tests.real_agents.answers import Answers
from tests.real_agents.expected import Expected

NO_TOKENS = {"input": None, "cached": None, "cache_write": None, "output": None, "reasoning": None}


def value(field):
    """A derived field's value (fields carry their provenance beside it)."""
    return field["value"] if isinstance(field, dict) and "provenance" in field else field


def _call(model: str | None, status: int | None, tokens: dict) -> tuple:
    return model, 200 if status in (None, 200) else status, tuple(sorted(tokens.items()))


def calls(exp: Expected, ans: Answers) -> None:
    """One llm_request per model call the fake answered or refused, side calls included, with its model,
    status and tokens (a call told both as a span and as a log event counts once)."""
    got = Counter(_call(r["model"], r["http_status"], r["tokens"]) for r in ans.spans("llm_request"))
    want = Counter(_call(c.model, c.status, asdict(c.tokens) if c.tokens else NO_TOKENS) for c in exp.calls)
    assert got == want


def tokens(exp: Expected, ans: Answers) -> None:
    """The trial's token totals are the sums over its answered calls; a count the agent never reports is null."""
    row = ans.trial_row
    assert (value(row["n_input_tokens"]), value(row["n_cache_tokens"]), value(row["n_output_tokens"])) == (
        exp.total("input"),
        exp.total("cached"),
        exp.total("output"),
    )
    assert value(ans.behavior["total_reasoning_tokens"]) == exp.total("reasoning")


def cost(exp: Expected, ans: Answers) -> None:
    """The trial's cost is the agent's own total where it reports one, else null (never 0)."""
    got = value(ans.trial_row["cost_usd"])
    assert got == (pytest.approx(exp.cost_usd, rel=1e-9) if exp.cost_usd is not None else None)


def rate_limits(exp: Expected, ans: Answers) -> None:
    """A refused call shows as a 429 and as a rate-limited retry of the trial."""
    refused = sum(c.status == 429 for c in exp.calls)
    assert sum(r["http_status"] == 429 for r in ans.spans("llm_request")) == refused
    assert value(ans.trial_row["n_rate_limited_retries"]) in ((refused,) if refused else (0, None))


def _absolute(exp: Expected, path: str) -> str:
    """A path as given, or one relative to the agent's working directory (Codex's patch headers) made absolute."""
    return path if path.startswith("/") else f"{exp.workspace}/{path}"


def tools(exp: Expected, ans: Answers) -> None:
    """One tool row per call the model made, in order: name, category, call id, target paths (absolute or
    relative to the agent's working directory), success."""
    rows = ans.spans("tool")
    got = [
        (
            r["tool"]["name"],
            r["tool"]["category"],
            r["tool"]["call_id"],
            tuple(sorted(_absolute(exp, p) for p in r["tool"]["target_paths"])),
            r["success"],
        )
        for r in rows
    ]
    assert got == [(t.name, t.category, t.call_id, tuple(sorted(t.paths)), not t.fails) for t in exp.tools]
    assert value(ans.trial_row["n_tool_calls"]) == len(exp.tools)


def behavior(exp: Expected, ans: Answers) -> None:
    """/behavior counts the same calls: by category and name, the files edit calls touched (absolute, or
    relative to the agent's working directory), the failed ones."""
    got = ans.behavior
    by_category = Counter(t.category for t in exp.tools)
    names: dict[str, Counter] = {}
    for t in exp.tools:
        names.setdefault(t.category, Counter())[t.name] += 1
    assert got["n_calls"] == len(exp.tools)
    assert value(got["category_freq"]) == dict(by_category)
    assert value(got["name_freq"]) == {c: dict(n) for c, n in names.items()}
    touched = {_absolute(exp, p) for p in value(got["files_touched"])}
    assert touched == {p for t in exp.tools if t.category == "edit" for p in t.paths}
    assert value(got["n_failed_calls"]) == sum(t.fails for t in exp.tools)


def _agent_steps(ans: Answers) -> list[dict]:
    return [s for s in ans.trajectory["steps"] if s["source"] == "agent"]


def prompt(exp: Expected, ans: Answers) -> None:
    """The user's prompt is the trial's one user message and the trajectory's first user step; where the
    agent tells no content, there is neither (none made up)."""
    users = [s for s in ans.trajectory["steps"] if s["source"] == "user"]
    if exp.prompt is None:
        assert (ans.spans("user_message"), users) == ([], [])
        return
    assert len(ans.spans("user_message")) == 1
    assert users and users[0]["message"] == exp.prompt


def answer(exp: Expected, ans: Answers) -> None:
    """The model's final text is the trajectory's last agent step; where the agent tells no content, no
    step has a text."""
    if exp.answer is None:
        assert {s["message"] for s in _agent_steps(ans)} == {""}
        return
    assert _agent_steps(ans)[-1]["message"] == exp.answer


def identity(exp: Expected, ans: Answers) -> None:
    """The trial's model is the main model (not a side call's); its agent and version are the agent's own."""
    row = ans.trial_row
    assert (row["model"], row["agent"], row["agent_version"]) == (exp.model, exp.agent, exp.version)
    assert value(ans.job_row["agent_label"]) == exp.agent


def _nodes(node: dict, ancestors: tuple = ()) -> list[tuple[dict, tuple]]:
    found = [(node, ancestors)]
    for child in node["children"]:
        found += _nodes(child, (*ancestors, node))
    return found


def trace(exp: Expected, ans: Answers, one_root: bool) -> None:
    """The trace tree holds each model and tool call once, at most one session, and — where the agent's
    spans give it one — all calls under a single root; a sub-agent's calls sit under the sub-agent."""
    nodes = [pair for root in ans.trace["roots"] for pair in _nodes(root)]
    kinds = Counter(node["kind"] for node, _ in nodes)
    assert (kinds["llm_request"], kinds["tool"]) == (len(exp.calls), len(exp.tools))
    assert sorted(n["event"]["tool"]["name"] for n, _ in nodes if n["kind"] == "tool") == sorted(
        t.name for t in exp.tools
    )
    assert kinds["session"] <= 1
    calls_in = {id(a[0]) if a else id(n) for n, a in nodes if n["kind"] in ("llm_request", "tool")}
    if one_root:
        assert len(calls_in) == 1, "model and tool calls are spread over several roots"
    for node, ancestors in nodes:
        if node["kind"] == "tool" and any(
            t.call_id == node["event"]["tool"]["call_id"] and t.subagent for t in exp.tools
        ):
            assert any(a["kind"] == "subagent" for a in ancestors), "a sub-agent's tool call is not under it"


def trajectory(exp: Expected, ans: Answers) -> None:
    """The ATIF trajectory validates with Harbor's and atif's models, and its agent is the agent: its name,
    version and main model."""
    document = ans.trajectory
    HarborTrajectory.model_validate(document)
    atif.Trajectory.model_validate(document)
    assert TrajectoryValidator().validate(document)
    agent = document["agent"]
    # ATIF requires a version: one the agent never told is "unknown", never a guess.
    assert (agent["name"], agent["version"], agent.get("model_name")) == (
        exp.agent,
        exp.version or "unknown",
        exp.model,
    )


def steps(exp: Expected, ans: Answers) -> None:
    """The trajectory's agent steps are the main agent's answered calls, in order, with their model and
    tokens; its totals count its calls and the side calls (a sub-agent's calls are the sub-agent's)."""
    got = [
        (
            s.get("model_name"),
            s.get("metrics", {}).get("prompt_tokens"),
            s.get("metrics", {}).get("completion_tokens"),
            s.get("metrics", {}).get("cached_tokens"),
        )
        for s in _agent_steps(ans)
    ]
    assert got == [(c.model, c.tokens.input, c.tokens.output, c.tokens.cached) for c in exp.steps]
    totals = ans.trajectory["final_metrics"]
    own = [c for c in exp.answered if not c.subagent]
    assert (totals["total_prompt_tokens"], totals["total_completion_tokens"], totals.get("total_cached_tokens")) == (
        exp.total("input", own),
        exp.total("output", own),
        exp.total("cached", own),
    )


def step_tools(exp: Expected, ans: Answers) -> None:
    """The trajectory's tool calls are the main agent's, with their ids, names and arguments."""
    got = [
        (c["tool_call_id"], c["function_name"], c["arguments"])
        for s in _agent_steps(ans)
        for c in s.get("tool_calls") or []
    ]
    assert got == [(t.call_id, t.name, t.arguments) for t in exp.tools if not t.subagent]


def harbor_export(exp: Expected, ans: Answers) -> None:
    """`harborlight export-job` writes a job Harbor's models load, and `harbor traces export` accepts the trial."""
    from harbor.utils.traces_utils import export_traces

    job_dir = ans.exported_job
    validate_job(job_dir)
    rows = export_traces(job_dir / ans.trial, recursive=False, use_rich_progress=False)
    assert len(rows) >= 1
    assert {row["agent"] for row in rows} == {exp.agent}


CHECKS = {
    "calls": calls,
    "tokens": tokens,
    "cost": cost,
    "rate_limits": rate_limits,
    "tools": tools,
    "behavior": behavior,
    "prompt": prompt,
    "answer": answer,
    "identity": identity,
    "trajectory": trajectory,
    "steps": steps,
    "step_tools": step_tools,
    "harbor_export": harbor_export,
}
ASPECTS = (*CHECKS, "trace")


def check(aspect: str, case) -> None:
    if aspect == "trace":
        trace(case.expected, case.answers, case.one_root)
    else:
        CHECKS[aspect](case.expected, case.answers)
