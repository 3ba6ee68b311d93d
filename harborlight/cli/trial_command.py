"""`harborlight trial TRIAL`: the trial row (GET /api/trials/{trial}), its behaviour metrics
(GET /api/trials/{trial}/behavior) and where its agent phase went (GET /api/trials/{trial}/time), each
value with how it was obtained; missing values as missing."""

import argparse
from typing import Any

from rich.console import Group
from rich.table import Table

from harborlight.api.routes.display import MISSING, is_valued, plain, seconds, utc
from harborlight.cli.api_access import Api, add_api_options, run_query, segment
from harborlight.cli.command_help import add_command
from harborlight.cli.render import console, counted, print_json, printable_json
from harborlight.read.derive.trial_state import NOTES, TrialState, row_state

# The trial row's valued fields, grouped as a reader looks for them; fields the API adds later land
# in "other" rather than being left out.
TRIAL_GROUPS = {
    "outcome": (
        "outcome",
        "reward",
        "score",
        "n_parts",
        "exception_type",
        "n_rate_limited_retries",
        "f2p_pass",
        "f2p_fail",
        "p2p_pass",
        "p2p_fail",
        "is_regression",
    ),
    "phase timings": ("dur_total", "dur_env", "dur_agent_setup", "dur_agent", "dur_verifier", "dur_other"),
    "tokens and cost": ("n_input_tokens", "n_cache_tokens", "n_output_tokens", "cost_usd", "n_steps", "n_tool_calls"),
}
SECONDS = {
    "dur_total",
    "dur_env",
    "dur_agent_setup",
    "dur_agent",
    "dur_verifier",
    "dur_other",
    "time_to_first_edit",
    "agent_window_s",
    "model_time_s",
    "tool_time_s",
    "gap_time_s",
}
TIME_FIELDS = (
    "agent_window_s",
    "model_time_s",
    "tool_time_s",
    "gap_time_s",
    "model_time_by_model",
    "n_timed_calls",
    "n_untimed_calls",
)
MAX_CALL_ROWS = 50


def _shown(name: str, v: Any) -> str:
    if v is None:
        return MISSING
    if name in SECONDS:
        return seconds(v)
    if name == "cost_usd":
        return f"${v:.4f}"
    if name == "token_series":
        return f"{len(v)} model call(s)"
    if name == "model_time_by_model":
        return ", ".join(f"{model}: {seconds(t)}" for model, t in v.items())
    if name == "name_freq":  # category -> tool -> calls: the tools are what a reader wants
        return ", ".join(f"{tool}: {n}" for tools in v.values() for tool, n in tools.items()) or "(none)"
    return plain(v)


def valued_table(title: str, row: dict[str, Any], names: tuple[str, ...]) -> Table:
    table = Table(title=title, title_justify="left")
    for column in ("field", "value", "how", "note"):
        table.add_column(column, style="bold" if column == "field" else None)
    for name in names:
        field = row[name]
        missing = field["value"] is None
        table.add_row(
            name,
            _shown(name, field["value"]),
            field["provenance"],
            field["note"] or "",
            style="dim" if missing else None,
        )
    return table


def _state(row: dict[str, Any]) -> str:
    """The trial's state by the one rule (read/derive/trial_state.py); `unknown` says why."""
    state = row_state(row["is_running"], row["finished_at"])
    return f"{state.value} ({NOTES[state]})" if state is TrialState.UNKNOWN else state.value


def identity_table(row: dict[str, Any]) -> Table:
    table = Table(title=f"trial {row['trial']}", show_header=False, title_justify="left")
    table.add_column("field", style="bold")
    table.add_column("value")
    for name, shown in (
        ("job", row["job"]),
        ("task", f"{row['task'] or MISSING} ({row['source'] or MISSING})"),
        ("attempt", plain(row["attempt"])),
        ("agent", f"{row['agent'] or MISSING} {row['agent_version'] or ''}".strip()),
        ("model", row["model"] or MISSING),
        ("state", _state(row)),
        ("started / finished", f"{utc(row['started_at'])} / {utc(row['finished_at'])}"),
        ("agent events", plain(row["n_events"])),
    ):
        table.add_row(name, shown)
    return table


def calls_table(behavior: dict[str, Any]) -> Table:
    calls = behavior["calls"]
    shown = calls[:MAX_CALL_ROWS]
    table = Table(
        title="tool calls" + (f" (first {len(shown)} of {len(calls)})" if len(calls) > len(shown) else ""),
        title_justify="left",
    )
    for column in ("#", "tool", "category", "targets", "failed", "failure"):
        table.add_column(column)
    for c in shown:
        failure = c["failure"]["value"]
        table.add_row(
            str(c["index"]),
            c["name"],
            c["category"],
            ", ".join(c["targets"]),
            {True: "failed", False: "", None: MISSING}[c["failed"]],
            "" if failure is None else failure.splitlines()[0][:120],
            style="red" if c["failed"] else None,
        )
    return table


def steps_table(behavior: dict[str, Any]) -> Table:
    """The trajectory's steps with their durations (seconds until the next step opened)."""
    steps = behavior["steps"]
    listed = steps["value"] or []
    shown = listed[:MAX_CALL_ROWS]
    title = "steps" + (f" (first {len(shown)} of {len(listed)})" if len(listed) > len(shown) else "")
    table = Table(title=title + (f": {steps['note']}" if steps["note"] else ""), title_justify="left")
    for column in ("step", "source", "at", "dur", "note"):
        table.add_column(column, justify="right" if column in ("step", "dur") else "left")
    for s in shown:
        dur = s["dur"]
        table.add_row(
            plain(s["step_id"]),
            s["source"] or MISSING,
            s["timestamp"] or MISSING,
            seconds(dur["value"]) if dur["value"] is not None else MISSING,
            dur["note"] or "",
            style="dim" if dur["value"] is None else None,
        )
    return table


def path_table(time: dict[str, Any]) -> Table | None:
    """The critical path's time per kind; None when there is no path."""
    path = time["critical_path"]["value"]
    if path is None:
        return None
    table = Table(title=f"critical path ({counted(path['n_steps'], 'step')})", title_justify="left")
    for column in ("on the path", "time"):
        table.add_column(column, justify="left" if column == "on the path" else "right")
    for kind, t in sorted(path["by_kind"].items(), key=lambda kv: -kv[1]):
        table.add_row(kind, seconds(t))
    table.add_row("in sub-agents (any kind)", seconds(path["in_subagents_s"]), style="dim")
    table.add_row("whole path", seconds(path["length_s"]), style="bold")
    return table


def longest_table(time: dict[str, Any]) -> Table | None:
    calls = time["longest_calls"]["value"]
    if not calls:
        return None
    table = Table(title="longest calls", title_justify="left")
    for column in ("kind", "call", "at", "took"):
        table.add_column(column, justify="right" if column in ("at", "took") else "left")
    for c in calls:
        table.add_row(c["kind"], c["name"], seconds(c["offset_s"]), seconds(c["duration_s"]))
    return table


def trial_view(row: dict[str, Any], behavior: dict[str, Any], time: dict[str, Any]) -> Group:
    grouped = {n for names in TRIAL_GROUPS.values() for n in names}
    other = tuple(n for n, f in row.items() if is_valued(f) and n not in grouped)
    parts: list = [identity_table(row)]
    parts += [valued_table(title, row, names) for title, names in TRIAL_GROUPS.items()]
    if other:
        parts.append(valued_table("other", row, other))
    behaviour_fields = tuple(n for n, f in behavior.items() if is_valued(f) and n != "steps")
    parts.append(
        valued_table(
            f"behaviour ({behavior['n_calls']} tool calls, {behavior['n_model_calls']} model calls"
            + (", truncated" if behavior["truncated"] else "")
            + ")",
            behavior,
            behaviour_fields,
        )
    )
    if behavior["calls"]:
        parts.append(calls_table(behavior))
    parts.append(steps_table(behavior))
    parts.append(valued_table("where the agent time went", time, TIME_FIELDS))
    parts += [t for t in (longest_table(time), path_table(time)) if t is not None]
    return Group(*parts)


def _show(api: Api, args: argparse.Namespace) -> None:
    path = f"/api/trials/{segment(args.trial)}"
    row = api.json(path, job=args.job)
    behavior = api.json(f"{path}/behavior", job=args.job)
    time = api.json(f"{path}/time", job=args.job)
    if args.json:
        print_json({"trial": row, "behavior": behavior, "time": time})
    else:
        console().print(trial_view(*printable_json([row, behavior, time])))


def add_trial_command(commands: Any) -> None:
    parser = add_command(
        commands,
        "trial",
        "one trial: outcome, reward, phase timings, tokens, cost, behaviour, where the time went",
        [
            "harborlight trial hello-world__aB3dE9f",
            "harborlight trial hello-world__aB3dE9f --job 2026-12-01__09-00-00 --json --server http://127.0.0.1:4318",
        ],
    )
    parser.add_argument("trial", metavar="TRIAL", help="the trial name (harbor.trial.name)")
    parser.add_argument("--job", default="", help="the job, when the trial name is in several jobs")
    parser.add_argument(
        "--json",
        action="store_true",
        help='the routes\' JSON instead: {"trial": /api/trials/TRIAL, "behavior": .../behavior, "time": .../time}',
    )
    add_api_options(parser)
    parser.set_defaults(run=lambda args: run_query(args, "trial TRIAL", _show))
