"""`harborlight trial TRIAL`: the trial row (GET /api/trials/{trial}) and its behaviour metrics
(GET /api/trials/{trial}/behavior), each value with how it was obtained; missing values as missing."""

import argparse
from typing import Any

from rich.console import Group
from rich.table import Table

from harborlight.api_access import Api, add_api_options, print_json, run_query, segment
from harborlight.render import MISSING, console, is_valued, plain, seconds, utc

# The trial row's valued fields, grouped as a reader looks for them; fields the API adds later land
# in "other" rather than being left out.
TRIAL_GROUPS = {
    "outcome": ("outcome", "reward", "score", "n_parts", "exception_type", "n_rate_limited_retries",
                "f2p_pass", "f2p_fail", "p2p_pass", "p2p_fail", "is_regression"),
    "phase timings": ("dur_total", "dur_env", "dur_agent_setup", "dur_agent", "dur_verifier", "dur_other"),
    "tokens and cost": ("n_input_tokens", "n_cache_tokens", "n_output_tokens", "cost_usd", "n_steps", "n_tool_calls"),
}
SECONDS = {"dur_total", "dur_env", "dur_agent_setup", "dur_agent", "dur_verifier", "dur_other", "time_to_first_edit"}
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
        table.add_row(name, _shown(name, field["value"]), field["provenance"], field["note"] or "",
                      style="dim" if missing else None)
    return table


def identity_table(row: dict[str, Any]) -> Table:
    table = Table(title=f"trial {row['trial']}", show_header=False, title_justify="left")
    table.add_column("field", style="bold")
    table.add_column("value")
    for name, shown in (("job", row["job"]), ("task", f"{row['task'] or MISSING} ({row['source'] or MISSING})"),
                        ("attempt", plain(row["attempt"])),
                        ("agent", f"{row['agent'] or MISSING} {row['agent_version'] or ''}".strip()),
                        ("model", row["model"] or MISSING), ("state", "running" if row["is_running"] else "finished"),
                        ("started / finished", f"{utc(row['started_at'])} / {utc(row['finished_at'])}"),
                        ("agent events", plain(row["n_events"]))):
        table.add_row(name, shown)
    return table


def calls_table(behavior: dict[str, Any]) -> Table:
    calls = behavior["calls"]
    shown = calls[:MAX_CALL_ROWS]
    table = Table(title="tool calls" + (f" (first {len(shown)} of {len(calls)})" if len(calls) > len(shown) else ""),
                  title_justify="left")
    for column in ("#", "tool", "category", "targets", "failed"):
        table.add_column(column)
    for c in shown:
        table.add_row(str(c["index"]), c["name"], c["category"], ", ".join(c["targets"]),
                      {True: "failed", False: "", None: MISSING}[c["failed"]], style="red" if c["failed"] else None)
    return table


def trial_view(row: dict[str, Any], behavior: dict[str, Any]) -> Group:
    grouped = {n for names in TRIAL_GROUPS.values() for n in names}
    other = tuple(n for n, f in row.items() if is_valued(f) and n not in grouped)
    parts: list = [identity_table(row)]
    parts += [valued_table(title, row, names) for title, names in TRIAL_GROUPS.items()]
    if other:
        parts.append(valued_table("other", row, other))
    behaviour_fields = tuple(n for n, f in behavior.items() if is_valued(f))
    parts.append(valued_table(f"behaviour ({behavior['n_calls']} tool calls, {behavior['n_model_calls']} model calls"
                              + (", truncated" if behavior["truncated"] else "") + ")", behavior, behaviour_fields))
    if behavior["calls"]:
        parts.append(calls_table(behavior))
    return Group(*parts)


def _show(api: Api, args: argparse.Namespace) -> None:
    path = f"/api/trials/{segment(args.trial)}"
    row = api.json(path, job=args.job)
    behavior = api.json(f"{path}/behavior", job=args.job)
    if args.json:
        print_json({"trial": row, "behavior": behavior})
    else:
        console().print(trial_view(row, behavior))


def add_trial_command(commands: Any) -> None:
    parser = commands.add_parser("trial", help="one trial: outcome, reward, phase timings, tokens, cost, behaviour")
    parser.add_argument("trial", metavar="TRIAL", help="the trial name (harbor.trial.name)")
    parser.add_argument("--job", default="", help="the job, when the trial name is in several jobs")
    parser.add_argument("--json", action="store_true",
                        help='the routes\' JSON instead: {"trial": /api/trials/TRIAL, "behavior": .../behavior}')
    add_api_options(parser)
    parser.set_defaults(run=lambda args: run_query(args, "trial TRIAL", _show))
