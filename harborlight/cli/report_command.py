"""`harborlight report JOB`: a job's metrics as tables, AgentCompass metrics.json or summary.md (or
each series' interval), or one HTML page to share (with --against, the paired comparison), from the
GET /api/jobs/{job} routes of a running server or of the store read in this process
(harborlight/cli/api_access.py)."""

import argparse
from typing import Any

from harborlight.cli.api_access import Api, ApiError, add_api_options, run_query, segment
from harborlight.cli.command_help import add_command

FORMATS = ("table", "json", "md", "intervals", "html")


def _show(api: Api, args: argparse.Namespace) -> None:
    from harborlight.cli.render import console, printable_json, write_document
    from harborlight.cli.report_table import report_tables

    if args.format not in FORMATS:
        raise ApiError(f"--format must be one of {', '.join(FORMATS)}, got {args.format!r}")
    if not args.job.strip():
        raise ApiError("JOB must name a job")
    if args.against and args.format != "html":
        raise ApiError("--against is for --format html")
    job = segment(args.job)
    if args.format == "table":
        row = api.json(f"/api/jobs/{job}")
        trials = api.pages(f"/api/jobs/{job}/trials", limit=None)["items"]
        time = api.json(f"/api/jobs/{job}/time")
        console().print(report_tables(*printable_json([row, trials, time])))
    else:
        write_document(
            api.get(f"/api/jobs/{job}/report", format=args.format, against=args.against).text,
            is_json=args.format in ("json", "intervals"),
        )


def add_report_command(commands: Any) -> None:
    """Registers `report` on the CLI's subcommands."""
    report = add_command(
        commands,
        "report",
        "a job's metrics: a table, metrics.json, summary.md or an HTML page",
        [
            "harborlight report 2026-12-01__09-00-00",
            "harborlight report 2026-12-01__09-00-00 --format json > metrics.json",
            "harborlight report 2026-12-01__09-00-00 --format md --server http://127.0.0.1:4318",
            "harborlight report claude-new-prompt --format html --against claude-baseline > report.html",
        ],
    )
    report.add_argument("job", metavar="JOB", help="the job name (harbor.job.name)")
    report.add_argument(
        "--format",
        default="table",
        help="table (default), json (AgentCompass metrics.json), md (summary.md), intervals "
        "(each metrics.json series' 95%% interval, JSON) or html (one self-contained page to share)",
    )
    report.add_argument(
        "--against",
        metavar="JOB",
        default="",
        help="with --format html: the paired comparison with this job on their matched tasks",
    )
    add_api_options(report)
    report.set_defaults(run=lambda args: run_query(args, "report JOB", _show))
