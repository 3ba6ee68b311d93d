"""`harborlight watch JOB`: a live table of the job's trials in the terminal, fed by GET /api/live."""

import argparse
import json
import os
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass

from rich.live import Live
from rich.table import Table

from harborlight.cli.command_help import add_command
from harborlight.cli.render import console as terminal
from harborlight.cli.render import printable_json
from harborlight.read.derive.trial_state import TrialState, trial_state
from harborlight.transfer.reach import cannot_reach

DEFAULT_SERVER = "http://127.0.0.1:4318"


@dataclass
class TrialLine:
    trial: str
    task: str = ""
    phase: str = "started"
    model_calls: int = 0
    failed_model_calls: int = 0
    tool_calls: int = 0
    failed_tool_calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float = 0.0
    phase_ended: bool = False  # a Harbor phase span ended
    root_ended: bool = False  # the trial's harbor.trial span ended
    outcome: str = ""  # then: the stored row's outcome (resolved, ...), else the root span's status

    @property
    def state(self) -> TrialState:
        """running, finished or unknown: the rule the trial row and the jobs' running counts follow."""
        return trial_state(self.root_ended, self.phase_ended)


class TrialBoard:
    """The trials of one job as the live events describe them; pure."""

    def __init__(self, job: str) -> None:
        self.job = job
        self.trials: dict[str, TrialLine] = {}

    def apply(self, event: dict) -> None:
        trial = event.get("trial")
        if not trial:
            return
        line = self.trials.setdefault(trial, TrialLine(trial))
        data, kind = event.get("data") or {}, event.get("type")
        if kind == "trial_started":
            line.task = data.get("task") or line.task
        elif kind == "phase":
            line.phase, line.phase_ended = f"{data['phase']} done", True
        elif kind == "model_call":
            line.model_calls += 1
            line.failed_model_calls += data.get("success") is False
            line.input_tokens += data.get("input_tokens") or 0
            line.output_tokens += data.get("output_tokens") or 0
            line.cost_usd += data.get("cost_usd") or 0.0
        elif kind == "tool_call":
            line.tool_calls += 1
            line.failed_tool_calls += data.get("success") is False
        elif kind == "trial_finished":
            line.phase, line.root_ended = "finished", True
            # The stored row's outcome (resolved, failed_verification, ...); the root span's status otherwise.
            line.outcome = data.get("outcome") or {True: "ok", False: "error"}.get(data.get("success"), "")

    def table(self) -> Table:
        table = Table(title=f"job {self.job}: {len(self.trials)} trials", expand=False)
        for column in (
            "trial",
            "task",
            "last phase",
            "model calls",
            "tool calls",
            "tokens in/out",
            "cost $",
            "state",
            "outcome",
        ):
            table.add_column(column, justify="right" if column[0] in "mtc" and column != "task" else "left")
        for t in sorted(self.trials.values(), key=lambda t: t.trial):
            failed_models = f" ({t.failed_model_calls} failed)" if t.failed_model_calls else ""
            failed_tools = f" ({t.failed_tool_calls} failed)" if t.failed_tool_calls else ""
            style = {"ok": "green", "resolved": "green", "error": "red"}.get(t.outcome, "")
            table.add_row(
                t.trial,
                t.task,
                t.phase,
                f"{t.model_calls}{failed_models}",
                f"{t.tool_calls}{failed_tools}",
                f"{t.input_tokens}/{t.output_tokens}",
                f"{t.cost_usd:.4f}",
                t.state.value,
                t.outcome,
                style=style,
            )
        return table


def live_events(server: str, job: str, token: str | None) -> Iterator[dict]:
    """The job's events from a running harborlight (stored ones first), as they arrive."""
    query = urllib.parse.urlencode({"job": job, "history": "true"})
    request = urllib.request.Request(f"{server.rstrip('/')}/api/live?{query}", headers={"Accept": "text/event-stream"})
    if token:
        request.add_header("Authorization", f"Bearer {token}")
    with urllib.request.urlopen(request, timeout=60) as stream:
        for raw in stream:
            line = raw.decode().rstrip("\r\n")
            if line.startswith("data: "):
                yield json.loads(line[6:])


def line(event: dict) -> str:
    """One event as a line of text (watch without a terminal): time, trial, what happened, its facts."""
    at = time.strftime("%H:%M:%S", time.gmtime(event["at_unix_nano"] / 1e9))
    facts = " ".join(f"{k}={v}" for k, v in (event.get("data") or {}).items() if v not in (None, "", [], {}))
    return f"{at} {event.get('trial') or '-'} {event['type']} {facts}".rstrip()


def _job_known(server: str, job: str, token: str | None) -> bool:
    request = urllib.request.Request(f"{server.rstrip('/')}/api/jobs/{urllib.parse.quote(job, safe='')}")
    if token:
        request.add_header("Authorization", f"Bearer {token}")
    try:
        with urllib.request.urlopen(request, timeout=120):
            return True
    except urllib.error.HTTPError as exc:
        if exc.code == 404:
            return False
        raise


def _follow(args: argparse.Namespace, show) -> int:
    """Shows each event (`show(board, event)`) until the stream ends; 1 when the server dropped it."""
    board = TrialBoard(args.job)
    for event in live_events(args.server, args.job, args.token):
        event = printable_json(event)
        if event.get("type") == "dropped":
            print(f"harborlight: the server ended the stream: {event['data'].get('reason')}", file=sys.stderr)
            return 1
        board.apply(event)
        show(board, event)
    return 0


def _watch(args: argparse.Namespace) -> int:
    try:
        if not args.wait and not _job_known(args.server, args.job, args.token):
            print(
                f"harborlight: no job named {args.job} on {args.server} (pass --wait to wait for its first event)",
                file=sys.stderr,
            )
            return 1
        if not sys.stdout.isatty():  # piped or logged: one line per event, as it comes
            return _follow(args, lambda board, event: print(line(event), flush=True))
        with Live(TrialBoard(args.job).table(), console=terminal(width=None), refresh_per_second=4) as live:
            return _follow(args, lambda board, event: live.update(board.table()))
    except KeyboardInterrupt:
        return 0
    except urllib.error.HTTPError as exc:
        print(
            f"harborlight: {args.server} answered {exc.code}: {exc.read().decode(errors='replace')[:200]}",
            file=sys.stderr,
        )
        return 1
    except (urllib.error.URLError, OSError) as exc:
        reason = getattr(exc, "reason", exc)
        print(
            f"harborlight: {cannot_reach(args.server, reason if isinstance(reason, BaseException) else str(reason))}",
            file=sys.stderr,
        )
        return 1


def add_watch_command(commands) -> None:
    watch = add_command(
        commands,
        "watch",
        "a live table of a job's trials, from a running server (without a terminal: one line per event)",
        [
            "harborlight watch 2026-12-01__09-00-00",
            "harborlight watch 2026-12-01__09-00-00 --server http://10.0.0.5:4318 --token $HARBORLIGHT_TOKEN",
        ],
    )
    watch.add_argument("job", help="the job (harbor.job.name) to watch")
    watch.add_argument(
        "--server",
        default=os.environ.get("HARBORLIGHT_SERVER", DEFAULT_SERVER),
        help=f"the running harborlight (env HARBORLIGHT_SERVER, default {DEFAULT_SERVER})",
    )
    watch.add_argument(
        "--token",
        default=os.environ.get("HARBORLIGHT_TOKEN"),
        help="API token when the server asks for one (env HARBORLIGHT_TOKEN)",
    )
    watch.add_argument(
        "--wait", action="store_true", help="wait for a job the server has not heard of yet (else: one line, exit 1)"
    )
    watch.set_defaults(run=_watch)
