"""`harborlight jobs`: job rows from GET /api/jobs (solve rates, pass@k, tokens, cost, each rate with
its 95% interval in brackets under it), a page at a time up to --limit."""

import argparse
from typing import Any

from rich.table import Table

from harborlight.api.routes.display import MISSING, num, pct, value, with_interval
from harborlight.cli.api_access import Api, add_api_options, run_query
from harborlight.cli.command_help import add_command
from harborlight.cli.render import console, print_json, printable_json
from harborlight.cli.spans_command import positive_int

JOBS_PAGE = 200  # the route's largest page


def series(row: dict[str, Any], key: str) -> str:
    """pass@k or pass^k, a line per k: `k=2 0.750 [0.612, 0.861]`; '-' when the job has none (too few attempts)."""
    block = row.get("pass_at_k") or {}
    points, intervals = value(block.get(key)), value(block.get(f"{key}_ci")) or {}
    return (
        "\n".join(with_interval(f"k={k} {v:.3f}", intervals.get(k), "{:.3f}") for k, v in points.items())
        if points
        else MISSING
    )


def jobs_table(page: dict[str, Any]) -> Table:
    more = f"; more with --cursor {page['next_cursor']}" if page["next_cursor"] else ""
    table = Table(
        title=f"{len(page['items'])} job(s){more}",
        title_justify="left",
        caption="[95% confidence interval over tasks] under each rate",
        caption_justify="left",
    )
    # a job's name is what the next command takes: never cut or wrapped, the other columns give way
    longest = max((len(row["job"]) for row in page["items"]), default=3)
    table.add_column("job", no_wrap=True, min_width=longest)
    for column in (
        "trials",
        "running",
        "raw solve",
        "adjusted solve",
        "mean score",
        "pass@k",
        "pass^k",
        "tokens in",
        "cost $",
        "agent",
        "dataset",
    ):
        table.add_column(column, justify="left" if column in ("pass@k", "pass^k", "agent", "dataset") else "right")
    for row in page["items"]:
        table.add_row(
            row["job"],
            num(value(row["n_trials"])),
            num(value(row["n_running"])),
            *(
                with_interval(pct(value(row[f])), row[f"{f}_ci"], sep="\n")
                for f in ("raw_solve_rate", "adjusted_solve_rate")
            ),
            with_interval(num(value(row["mean_score"]), "{:.3f}"), row["mean_score_ci"], "{:.3f}", "\n"),
            series(row, "pass_at_k"),
            series(row, "pass_hat_k"),
            num(value(row["total_input_tokens"])),
            num(value(row["total_cost_usd"]), "{:.4f}"),
            f"{value(row['agent_label']) or MISSING} {value(row['agent_version']) or ''}".strip(),
            value(row["dataset"]) or MISSING,
        )
    return table


def _show(api: Api, args: argparse.Namespace) -> None:
    page = api.pages("/api/jobs", limit=args.limit, page=JOBS_PAGE, cursor=args.cursor)
    if args.json:
        print_json(page)
    else:
        console().print(jobs_table(printable_json(page)))


def add_jobs_command(commands: Any) -> None:
    parser = add_command(
        commands,
        "jobs",
        "job rows: solve rates, pass@k / pass^k, tokens, cost",
        [
            "harborlight jobs",
            "harborlight jobs --limit 500 --json --server http://127.0.0.1:4318",
        ],
    )
    parser.add_argument("--limit", type=positive_int, default=50, help="most jobs listed (default 50), by name")
    parser.add_argument("--cursor", default=None, help="start after a previous listing's last job")
    parser.add_argument("--json", action="store_true", help="the route's JSON ({items, next_cursor}) instead")
    add_api_options(parser)
    parser.set_defaults(run=lambda args: run_query(args, "jobs", _show))
