"""`harborlight spans`: agent events (model calls, tool calls, ...) from GET /api/spans, filtered as
the route filters, a table of calls or the route's JSON."""

import argparse
from typing import Any

from rich.table import Table

from harborlight.api.routes.display import MISSING, nanos_as_seconds, num, utc
from harborlight.cli.api_access import Api, add_api_options, run_query, segment
from harborlight.cli.command_help import add_command
from harborlight.cli.render import console, print_json, printable_json

# flag -> the route's query parameter
FILTERS = {
    "job": "job",
    "trial": "trial",
    "kind": "kind",
    "category": "tool_category",
    "model": "model",
    "status": "status",
    "service": "service",
    "name": "name",
    "since": "since",
    "until": "until",
}


def positive_int(raw: str) -> int:
    if not raw.isdigit() or int(raw) < 1:
        raise argparse.ArgumentTypeError(f"must be a whole number of at least 1, got {raw!r}")
    return int(raw)


def _outcome(event: dict[str, Any]) -> str:
    said = {True: "ok", False: "error", None: ""}[event["success"]]
    status = event["http_status"]
    return (
        " ".join(s for s in (str(status) if status is not None else "", said, event["error_type"] or "") if s)
        or MISSING
    )


def _what(event: dict[str, Any]) -> str:
    tool = event["tool"] or {}
    if tool.get("name"):
        return f"{tool['name']} ({tool['category']})" if tool.get("category") else tool["name"]
    return event["name"]


def _tokens(event: dict[str, Any]) -> str:
    tokens = event["tokens"]
    if tokens["input"] is None and tokens["output"] is None:
        return MISSING
    return f"{num(tokens['input'])} / {num(tokens['output'])}"


def spans_table(page: dict[str, Any], with_trial: bool) -> Table:
    items = page["items"]
    more = f"; more with --cursor {page['next_cursor']}" if page["next_cursor"] else ""
    table = Table(title=f"{len(items)} event(s){more}", title_justify="left")
    columns = [
        "time (UTC)",
        *(["trial"] if with_trial else []),
        "kind",
        "name / tool",
        "model",
        "tokens in / out",
        "cost $",
        "status",
        "duration",
    ]
    for column in columns:
        table.add_column(column, justify="right" if column in ("tokens in / out", "cost $", "duration") else "left")
    for e in items:
        failed = e["success"] is False or (e["http_status"] or 0) >= 400
        table.add_row(
            utc(e["start_unix_nano"], nanos=True),
            *([e["trial"] or MISSING] if with_trial else []),
            e["kind"],
            _what(e),
            e["model"] or MISSING,
            _tokens(e),
            num(e["cost_usd"], "{:.4f}"),
            _outcome(e),
            nanos_as_seconds(e["duration_ns"]),
            style="red" if failed else None,
        )
    return table


def _show(api: Api, args: argparse.Namespace) -> None:
    filters = {param: getattr(args, flag) for flag, param in FILTERS.items()}
    page = api.pages("/api/spans", limit=args.limit, cursor=args.cursor, **filters)
    if not page["items"]:  # none: say so if the trial or job asked for is not in the store at all
        if args.trial:
            api.get(f"/api/trials/{segment(args.trial)}", job=args.job)
        elif args.job:
            api.get(f"/api/jobs/{segment(args.job)}")
    if args.json:
        print_json(page)
    else:
        console().print(spans_table(printable_json(page), with_trial=not args.trial))


def add_spans_command(commands: Any) -> None:
    parser = add_command(
        commands,
        "spans",
        "agent events (model calls, tool calls, ...) by job, trial, kind, tool category, model, status, time",
        [
            "harborlight spans --trial hello-world__aB3dE9f --kind tool",
            "harborlight spans --job 2026-12-01__09-00-00 --kind llm_request --status 429",
            "harborlight spans --category execute --since 2026-12-01T09:00:00Z --limit 1000 --json",
        ],
    )
    parser.add_argument("--job", default="", help="the job (harbor.job.name)")
    parser.add_argument("--trial", default="", help="the trial (harbor.trial.name)")
    parser.add_argument(
        "--kind",
        default="",
        help="llm_request, tool, subagent, session, user_message, reasoning, output, compaction or group",
    )
    parser.add_argument(
        "--category", default="", help="a tool call's category: plan, search, read, edit, execute or other"
    )
    parser.add_argument("--model", default="", help="the model, as recorded")
    parser.add_argument("--status", default="", help="an HTTP status (e.g. 429), or ok / error")
    parser.add_argument("--service", default="", help="service.name of the sender")
    parser.add_argument("--name", default="", help="span name or event name")
    parser.add_argument("--since", default="", help="ISO 8601 start, inclusive (e.g. 2025-12-01T09:00:00Z)")
    parser.add_argument("--until", default="", help="ISO 8601 end, exclusive")
    parser.add_argument(
        "--limit", type=positive_int, default=100, help="most events listed (default 100); pages are followed up to it"
    )
    parser.add_argument("--cursor", default=None, help="start after a previous listing's last event")
    parser.add_argument("--json", action="store_true", help="the route's JSON ({items, next_cursor}) instead")
    add_api_options(parser)
    parser.set_defaults(run=lambda args: run_query(args, "spans ...", _show))
