"""`harborlight report JOB`: a job's metrics as tables, AgentCompass metrics.json or summary.md (or
each series' interval), from the GET /api/jobs/{job} routes of a running server or of the store read
in this process (harborlight/api_access.py)."""

import argparse
import sys
from typing import Any

from harborlight.api_access import Api, ApiError, add_api_options, run_query, segment
from harborlight.command_help import add_command

FORMATS = ("table", "json", "md", "intervals")


def _show(api: Api, args: argparse.Namespace) -> None:
    from harborlight.render import console
    from harborlight.report_table import report_tables

    if args.format not in FORMATS:
        raise ApiError(f"--format must be one of {', '.join(FORMATS)}, got {args.format!r}")
    if not args.job.strip():
        raise ApiError("JOB must name a job")
    job = segment(args.job)
    if args.format == "table":
        row = api.json(f"/api/jobs/{job}")
        trials = api.pages(f"/api/jobs/{job}/trials", limit=None)["items"]
        console().print(report_tables(row, trials, api.json(f"/api/jobs/{job}/time")))
    else:
        sys.stdout.write(api.get(f"/api/jobs/{job}/report", format=args.format).text)


def add_report_command(commands: Any) -> None:
    """Registers `report` on the CLI's subcommands."""
    report = add_command(commands, "report", "a job's metrics: a table, metrics.json or summary.md", [
        "harborlight report 2026-12-01__09-00-00",
        "harborlight report 2026-12-01__09-00-00 --format json > metrics.json",
        "harborlight report 2026-12-01__09-00-00 --format md --server http://127.0.0.1:4318",
    ])
    report.add_argument("job", metavar="JOB", help="the job name (harbor.job.name)")
    report.add_argument("--format", default="table",
                        help="table (default), json (AgentCompass metrics.json), md (summary.md) or intervals "
                             "(each metrics.json series' 95%% interval, JSON)")
    add_api_options(report)
    report.set_defaults(run=lambda args: run_query(args, "report JOB", _show))
