"""`harborlight compare JOB JOB...`: jobs on their matched tasks (GET /api/compare): rates with their
difference from the baseline (the first job), the paired comparison of each job with the baseline (the
per-task difference, its interval, the exact test and the verdict), and each task's outcomes with its flip."""

import argparse
from typing import Any

from rich.console import Group
from rich.table import Table
from rich.text import Text

from harborlight.api.routes.display import MISSING, num, pct, value
from harborlight.cli.api_access import Api, ApiError, add_api_options, run_query
from harborlight.cli.command_help import add_command
from harborlight.cli.render import console, print_json, printable_json

RATES = (
    ("raw solve rate", "raw_solve_rate"),
    ("adjusted solve rate", "adjusted_solve_rate"),
    ("mean score", "mean_score"),
)
TOTALS = (
    ("trials", "n_trials", "{:,}"),
    ("infra failures", "n_infra", "{:,}"),
    ("tokens in", "total_input_tokens", "{:,}"),
    ("cost $", "total_cost_usd", "{:.4f}"),
)
FLIP_STYLES = {"gained": "green", "lost": "red", "mixed": "yellow"}


def _rate(name: str, v: float | None) -> str:
    return num(v, "{:.3f}") if name == "mean_score" else pct(v)


def _difference(name: str, d: float | None) -> str:
    if d is None:
        return ""
    return f" ({d:+.3f})" if name == "mean_score" else f" ({d * 100:+.1f} pts)"


def metrics_table(c: dict[str, Any]) -> Table:
    table = Table(
        title=f"{value(c['matched_tasks'])} matched task(s), {value(c['n_flips'])} flip(s)", title_justify="left"
    )
    table.add_column("on matched tasks", style="bold")
    for i, job in enumerate(c["jobs"]):
        table.add_column(job if i else f"{job} (baseline)", justify="right")
    for label, field in RATES:
        table.add_row(
            label,
            *(
                _rate(field, value(c["metrics"][j][field]))
                + (_difference(field, value(c["differences"][j][field])) if i else "")
                for i, j in enumerate(c["jobs"])
            ),
        )
    for label, field, fmt in TOTALS:
        table.add_row(label, *(num(value(c["metrics"][j][field]), fmt) for j in c["jobs"]))
    return table


MAX_MOVED_LISTED = 20
TESTS = {"mcnemar_exact": "McNemar exact", "sign": "sign test"}


def _moved(pairs: list[dict[str, Any]]) -> str:
    names = [p["task"] for p in pairs[:MAX_MOVED_LISTED]]
    return ", ".join(names) + (f" (+{len(pairs) - len(names)} more)" if len(pairs) > len(names) else "")


def paired_table(c: dict[str, Any]) -> Table:
    base = c["jobs"][0]
    table = Table(title=f"paired on matched tasks, against {base}", title_justify="left")
    for column in ("job", "measure", "tasks", "difference [95% CI]", "test", "p", "up / down / tied"):
        table.add_column(column, justify="left" if column in ("job", "measure", "test") else "right")
    for job in c["jobs"][1:]:
        p = c["paired"][job]
        points = p["measure"] == "solved"
        fmt = "{:+.1f}" if points else "{:+.3f}"
        scale = 100 if points else 1
        mean = value(p["mean_difference"])
        ci = value(p["difference_ci"])
        difference = (
            MISSING
            if mean is None
            else fmt.format(mean * scale)
            + (" pts" if points else "")
            + (f" [{fmt.format(ci['low'] * scale)}, {fmt.format(ci['high'] * scale)}]" if ci else "")
        )
        excluded = value(p["n_excluded"])
        table.add_row(
            job,
            "solve rate" if points else "score",
            f"{value(p['n_tasks'])}" + (f" ({excluded} left out)" if excluded else ""),
            difference,
            TESTS[p["test"]],
            num(value(p["p_value"]), "{:.2g}"),
            f"{value(p['n_better'])} / {value(p['n_worse'])} / {value(p['n_tied'])}",
        )
    return table


def verdicts(c: dict[str, Any]) -> Text:
    lines = []
    for job in c["jobs"][1:]:
        p = c["paired"][job]
        lines.append(p["verdict"] + ".")
        for label, key in (("up", "better_tasks"), ("down", "worse_tasks")):
            if p[key]:
                lines.append(f"  {label} in {job}: {_moved(p[key])}")
    return Text("\n".join(lines))


def tasks_table(c: dict[str, Any]) -> Table:
    table = Table(title="matched tasks (outcome of each job's last attempt)", title_justify="left")
    for column in ("dataset", "task", *c["jobs"], "flip"):
        table.add_column(column)
    for row in c["rows"]:
        table.add_row(
            row["dataset"] or MISSING,
            row["task"],
            *(row["outcomes"][j] or "running" for j in c["jobs"]),
            row["flip"] or "",
            style=FLIP_STYLES.get(row["flip"] or ""),
        )
    return table


def last_messages(c: dict[str, Any]) -> Text:
    """Each matched task's closing message of each job's last attempt (--last-message)."""
    lines = ["closing message of each job's last attempt"]
    for row in c["rows"]:
        for job in c["jobs"]:
            said = row["last_agent_message"][job]
            text = said["value"] if said["value"] is not None else f"({said['note']})"
            lines.append(f"  {row['task']} / {job} ({row['last_trial'][job]}): {text}")
    return Text("\n".join(lines))


def _show(api: Api, args: argparse.Namespace) -> None:
    if len(args.jobs) < 2:
        raise ApiError("compare needs two or more jobs, baseline first")
    comparison = api.json("/api/compare", jobs=",".join(args.jobs), last_message="true" if args.last_message else "")
    if args.json:
        print_json(comparison)
    else:
        comparison = printable_json(comparison)
        out = console()
        out.print(Group(metrics_table(comparison), paired_table(comparison)))
        out.print(verdicts(comparison), soft_wrap=True)  # a sentence per line, folded by the terminal
        out.print(tasks_table(comparison))
        if args.last_message:
            out.print(last_messages(comparison), soft_wrap=True)


def add_compare_command(commands: Any) -> None:
    parser = add_command(
        commands,
        "compare",
        "jobs on their matched tasks: rates, differences, paired test, flips",
        [
            "harborlight compare claude-baseline claude-new-prompt",
            "harborlight compare run-a run-b run-c --json --server http://127.0.0.1:4318",
            "harborlight compare claude-baseline claude-new-prompt --last-message",
        ],
    )
    parser.add_argument("jobs", metavar="JOB", nargs="+", help="two or more job names, the baseline first")
    parser.add_argument(
        "--last-message",
        action="store_true",
        help="each task's closing agent message per job (reads one trajectory per task and job)",
    )
    parser.add_argument("--json", action="store_true", help="the route's JSON instead")
    add_api_options(parser)
    parser.set_defaults(run=lambda args: run_query(args, "compare JOB JOB...", _show))
