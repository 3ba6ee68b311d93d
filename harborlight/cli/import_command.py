"""`harborlight import otlp FILE...` and `harborlight import harbor JOBDIR...`, with a progress bar on
a terminal and a one-line summary; bad input is one line on stderr and exit 1. A Harbor job's file that is
refused (not a regular file inside its job directory, or over its size limit) is one line on stderr, the
rest is imported, and the exit status is 2. The importers (and the store, the write path) are imported when
it runs, not for its --help."""

import argparse
import asyncio
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from harborlight.cli.command_help import add_command
from harborlight.cli.transfer_access import add_store_options, sink_for
from harborlight.settings import Settings, env_name, flag_name
from harborlight.transfer.errors import TransferError

if TYPE_CHECKING:
    from rich.progress import Progress

    from harborlight.transfer.confined_files import FileLimits
    from harborlight.transfer.pump import Tally


def _progress() -> "Progress":
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    console = Console(stderr=True)
    return Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=console,
        disable=not console.is_terminal,
        transient=True,
    )


def _rejections(tally: "Tally") -> str:
    if not tally.rejected:
        return ""
    reasons = "; ".join(f"{reason} (x{n})" if n > 1 else reason for reason, n in tally.reasons.most_common(5))
    return f"; rejected {tally.rejected:,} item(s): {reasons}"


async def _otlp(args: argparse.Namespace) -> str:
    from harborlight.transfer.otlp_import import import_otlp, read_files

    files = read_files(args.files)
    with _progress() as progress:
        task = progress.add_task("importing OTLP files", total=len(files))
        async with sink_for(args, "import otlp") as sink:
            tally = await import_otlp(files, sink, lambda n: progress.advance(task, n))
    duplicates = (
        f"; {tally.duplicates} request(s) ({tally.stored - tally.new:,} item(s)) were already stored, not stored again"
        if tally.duplicates
        else ""
    )
    return (
        f"stored {tally.new:,} new item(s) from {len(files)} file(s) in {tally.requests:,} request(s)"
        f"{_rejections(tally)}{duplicates}"
    )


_LIMITS = ("import_max_json_mib", "import_max_trajectory_mib", "import_max_log_mib")


def _limits(args: argparse.Namespace) -> "FileLimits":
    from harborlight.transfer.confined_files import MIB, FileLimits

    settings = Settings.resolve({name: getattr(args, name, None) for name in _LIMITS})
    return FileLimits(
        json_bytes=settings.import_max_json_mib * MIB,
        trajectory_bytes=settings.import_max_trajectory_mib * MIB,
        log_bytes=settings.import_max_log_mib * MIB,
    )


def _refused(line: str) -> None:
    print(f"harborlight: {line}", file=sys.stderr, flush=True)


async def _harbor(args: argparse.Namespace) -> str:
    from harborlight.transfer.harbor_import import count_trials, import_harbor

    limits = _limits(args)
    with _progress() as progress:
        task = progress.add_task("importing Harbor trials", total=count_trials(args.jobdirs))
        async with sink_for(args, "import harbor") as sink:
            report = await import_harbor(args.jobdirs, sink, lambda n: progress.advance(task, n), limits, _refused)
    args.refused = len(report.refused)
    running = f"; {report.running} of them still running" if report.running else ""
    if report.running_skipped:
        running += f"; skipped {report.running_skipped} running trial(s) with no trajectory step yet"
    again = " (already stored)" if report.spans.requests and report.spans.duplicates == report.spans.requests else ""
    refused = f"; refused {len(report.refused)} file(s), listed above" if report.refused else ""
    return (
        f"imported {report.trials} trial(s) of {len(report.jobs)} job(s) as {report.spans.stored:,} span(s)"
        f"{again}{running}{_rejections(report.spans)}{refused}"
    )


def _run(work) -> Any:
    def run(args: argparse.Namespace) -> int:
        try:
            print(f"harborlight: {asyncio.run(work(args))}")
        except TransferError as exc:
            print(f"harborlight: {exc}", file=sys.stderr)
            return 1
        return 2 if getattr(args, "refused", 0) else 0

    return run


def add_import_command(commands: Any) -> None:
    """Registers `import otlp` and `import harbor` on the CLI's subcommands."""
    parser = add_command(
        commands,
        "import",
        "store OpenTelemetry files or Harbor job directories",
        [
            "harborlight import otlp traces.jsonl logs.jsonl",
            "harborlight import harbor jobs/2026-12-01__09-00-00",
        ],
    )
    kinds = parser.add_subparsers(dest="kind", required=True)
    otlp = add_command(
        kinds,
        "otlp",
        "Collector file exporter JSON lines, OTLP/JSON documents, OTLP protobuf",
        [
            "harborlight import otlp traces.jsonl logs.jsonl metrics.jsonl",
            "harborlight import otlp export.pb --server http://127.0.0.1:4318 --token $HARBORLIGHT_TOKEN",
        ],
    )
    otlp.add_argument("files", metavar="FILE", nargs="+", type=Path)
    add_store_options(otlp)
    otlp.set_defaults(run=_run(_otlp))
    harbor = add_command(
        kinds,
        "harbor",
        "Harbor job directories (result.json, ATIF trajectories, rewards)",
        [
            "harborlight import harbor jobs/2026-12-01__09-00-00",
            "harborlight import harbor jobs/* --data-dir harborlight-data",
        ],
    )
    harbor.add_argument("jobdirs", metavar="JOBDIR", nargs="+", type=Path)
    for name in _LIMITS:
        default = Settings.__dataclass_fields__[name].default
        harbor.add_argument(
            flag_name(name),
            dest=name,
            type=int,
            default=None,
            metavar="MIB",
            help=f"{Settings.__dataclass_fields__[name].metadata['help']} (env {env_name(name)}, default {default})",
        )
    add_store_options(harbor)
    harbor.set_defaults(run=_run(_harbor))
