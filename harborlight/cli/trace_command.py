"""`harborlight trace TRIAL`: the trial's span tree from GET /api/trials/{trial}/trace, as a rich Tree:
each node's resolved kind, name, duration, timing quality and the facts that matter for its kind; then
the producer's own totals."""

import argparse
from typing import Any

from rich.text import Text
from rich.tree import Tree

from harborlight.api.routes.display import nanos_as_seconds, num
from harborlight.cli.api_access import Api, add_api_options, run_query, segment
from harborlight.cli.command_help import add_command
from harborlight.cli.render import console, print_json, printable_json

KIND_STYLES = {
    "session": "bold",
    "subagent": "bold magenta",
    "llm_request": "cyan",
    "tool": "green",
    "user_message": "yellow",
    "compaction": "blue",
}


def _facts(event: dict[str, Any]) -> list[str]:
    facts = []
    if event["model"]:
        facts.append(event["model"])
    tokens = event["tokens"]
    if tokens["input"] is not None or tokens["output"] is not None:
        facts.append(f"tokens {num(tokens['input'])} in / {num(tokens['output'])} out")
    if event["cost_usd"] is not None:
        facts.append(f"${event['cost_usd']:.4f}")
    if event["http_status"] is not None:
        facts.append(f"HTTP {event['http_status']}")
    if event["success"] is False:
        facts.append("failed" + (f" ({event['error_type']})" if event["error_type"] else ""))
    if (decision := event.get("decision")) is not None:
        facts.append(f"decision {decision['decision']}" + (f" by {decision['source']}" if decision["source"] else ""))
    return facts


def node_label(node: dict[str, Any]) -> Text:
    event, kind = node["event"], node["kind"]
    tool = event["tool"] or {}
    name = event["name"]
    if tool.get("name") and tool["name"] not in name:
        name += f" [{tool['name']}]"
    label = Text()
    label.append(kind, style=KIND_STYLES.get(kind, ""))
    label.append(f"  {name}")
    if tool.get("category"):
        label.append(f" ({tool['category']})")
    label.append(f"  {nanos_as_seconds(event['duration_ns'])}", style="bold")
    label.append(f"  timing {event['timing']}", style="dim")
    if event["source"] == "otel_logs":
        label.append("  log event", style="dim")
    if node["orphan"]:
        label.append("  orphan: parent span not received", style="yellow")
    if facts := _facts(event):
        label.append("  " + ", ".join(facts), style="red" if event["success"] is False else "")
    return label


def trace_tree(trace: dict[str, Any]) -> Tree:
    kinds = ", ".join(f"{k} {n}" for k, n in sorted(trace["kinds"].items()))
    title = (
        f"trial {trace['trial']}: {trace['events']} event(s), {trace['orphans']} orphan(s); {kinds}"
        + (f"; {trace['hidden']} left out (--hide, --hide-span)" if trace["hidden"] else "")
        + ("; truncated: the trial has more events than the API reads" if trace["truncated"] else "")
        + ("; deeper than the API nests: the deeper spans are in --json's rows" if trace.get("unnested") else "")
    )
    tree = Tree(Text(title, style="bold"))
    unnested = set(trace.get("unnested") or ())
    stack = [(tree, node) for node in reversed(trace["roots"])]
    while stack:  # iterative: the API nests up to 100 levels, and a tree's depth is the sender's choice
        parent, node = stack.pop()
        label = node_label(node)
        if node["event"]["event_id"] in unnested:
            label.append("  (deeper spans: in --json's rows)", style="yellow")
        branch = parent.add(label)
        stack.extend((branch, child) for child in reversed(node["children"]))
    return tree


def totals_lines(totals: dict[str, Any]) -> list[str]:
    """The producer's own totals as it sent them: each trajectory's final_metrics, each counter's total."""
    value = totals["value"]
    if value is None:
        return [f"no totals: {totals['note']}"]
    lines = [f"totals ({totals['provenance']}): {totals['note']}"]
    for f in value["final_metrics"]:
        who = " ".join(x for x in (f["agent"], f["trajectory_id"]) if x) or "trajectory"
        lines.append(f"  final_metrics of {who}: " + ", ".join(f"{k} {v}" for k, v in f["final_metrics"].items()))
    for c in value["counters"]:
        what = " ".join(x for x in (c["model"], c["type"]) if x)
        lines.append(
            f"  {c['metric']} {what}: {c['value']:g}{' ' + c['unit'] if c['unit'] else ''} ({c['points']} point(s))"
        )
    return lines


def _show(api: Api, args: argparse.Namespace) -> None:
    trace = api.json(f"/api/trials/{segment(args.trial)}/trace", job=args.job, hide=args.hide, hide_span=args.hide_span)
    if args.json:
        print_json(trace)
    else:
        trace = printable_json(trace)
        console().print(trace_tree(trace))
        console().print(Text("\n".join(totals_lines(trace["totals"]))))


def add_trace_command(commands: Any) -> None:
    parser = add_command(
        commands,
        "trace",
        "a trial's span tree: kinds, names, durations, timing quality",
        [
            "harborlight trace hello-world__aB3dE9f",
            "harborlight trace hello-world__aB3dE9f --job 2026-12-01__09-00-00 --json",
            "harborlight trace hello-world__aB3dE9f --hide reasoning,output --hide-span 4c7740acd2dda7e4",
        ],
    )
    parser.add_argument("trial", metavar="TRIAL", help="the trial name (harbor.trial.name)")
    parser.add_argument("--job", default="", help="the job, when the trial name is in several jobs")
    parser.add_argument(
        "--hide", default="", metavar="KINDS", help="comma-separated kinds left out, with their subtrees"
    )
    parser.add_argument(
        "--hide-span",
        default="",
        metavar="IDS",
        help="comma-separated span ids (event_id in --json) left out, with their subtrees",
    )
    parser.add_argument("--json", action="store_true", help="the route's JSON instead")
    add_api_options(parser)
    parser.set_defaults(run=lambda args: run_query(args, "trace TRIAL", _show))
