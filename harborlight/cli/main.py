"""`harborlight ...`: the command line. Bad input is one line on stderr and a non-zero exit."""

import argparse
import logging
import sys
from collections.abc import Callable
from dataclasses import fields
from importlib import import_module
from pathlib import Path
from typing import Any, NoReturn

from harborlight.cli.command_help import add_command
from harborlight.settings import Settings, env_name, flag_name

# Every command but serve: the module that registers it and its summary. `harborlight --help` lists the
# summaries without importing any command module, and a command's module (with what it imports: the store,
# the server, ...) is imported only when that command is asked for. tests/cli check that each summary here is
# the one its module registers.
COMMANDS: dict[str, tuple[str, str]] = {
    "report": ("report_command", "a job's metrics: a table, metrics.json, summary.md or an HTML page"),
    "spans": (
        "spans_command",
        "agent events (model calls, tool calls, ...) by job, trial, kind, tool category, model, status, time",
    ),
    "trial": (
        "trial_command",
        "one trial: outcome, reward, phase timings, tokens, cost, behaviour, where the time went",
    ),
    "trace": ("trace_command", "a trial's span tree: kinds, names, durations, timing quality"),
    "jobs": ("jobs_command", "job rows: solve rates, pass@k / pass^k, tokens, cost"),
    "compare": ("compare_command", "jobs on their matched tasks: rates, differences, paired test, flips"),
    "watch": (
        "watch_command",
        "a live table of a job's trials, from a running server (without a terminal: one line per event)",
    ),
    "import": ("import_command", "store OpenTelemetry files or Harbor job directories"),
    "export-job": ("export_command", "write a job as a Harbor job directory (DIR/<job>/)"),
    "schema": ("schema_command", "print or apply the store's DDL, for one server or a cluster"),
    "wal": ("wal_command", "the write-ahead log: commit again the requests the store refused"),
}
SERVE_SUMMARY = "receive OTLP and answer the API"


class OneLineParser(argparse.ArgumentParser):
    """A bad flag is one line on stderr (argparse would print the usage block first); exit 2."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"harborlight: {message} (see: {self.prog} --help)\n")


def _add_settings(parser: argparse.ArgumentParser, names: list[str]) -> None:
    for f in fields(Settings):
        if f.name in names:
            kind = Path if "Path" in str(f.type) else int if "int" in str(f.type) else str
            parser.add_argument(
                flag_name(f.name),
                dest=f.name,
                type=kind,
                default=None,
                help=f"{f.metadata['help']} (env {env_name(f.name)}, default {f.default})",
            )


def _serve(args: argparse.Namespace) -> int:
    import asyncio
    import signal

    from harborlight.app import running
    from harborlight.store import StoreUnavailable

    settings = Settings.resolve(vars(args))

    async def main() -> None:
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, stop.set)
        async with running(settings) as run:
            where = settings.clickhouse_url or f"embedded store at {settings.data_dir}"
            print(
                f"harborlight: OTLP/gRPC on {settings.host}:{run.grpc_port}, OTLP/HTTP and API on "
                f"http://{settings.host}:{run.http_port} (docs at /docs), {where}",
                flush=True,
            )
            await stop.wait()

    try:
        asyncio.run(main())
    except (StoreUnavailable, OSError) as exc:
        print(f"harborlight: {exc}", file=sys.stderr)
        return 1
    return 0


def register(commands: Any, name: str) -> None:
    """The command `name` with its flags and examples, from its module (imported now)."""
    module, _ = COMMANDS[name]
    getattr(import_module(f"harborlight.cli.{module}"), f"add_{module}")(commands)


def asked_for(argv: list[str]) -> str | None:
    """The command named on the command line (the first word that is not a flag), if any."""
    return next((word for word in argv if not word.startswith("-")), None)


def build_parser(argv: list[str] | None = None) -> argparse.ArgumentParser:
    """Every command's parser; given `argv`, only the command it names is registered whole (the others by
    name and summary, enough for `harborlight --help`)."""
    parser = OneLineParser(prog="harborlight", description="Observability backend for AI agents.")
    commands = parser.add_subparsers(dest="command", required=True)
    serve = add_command(
        commands,
        "serve",
        SERVE_SUMMARY,
        [
            "harborlight serve",
            "harborlight serve --host 0.0.0.0 --data-dir /var/lib/harborlight --tokens-file tokens"
            "   # lines: TOKEN TENANT",
            "harborlight serve --clickhouse-url http://default:secret@clickhouse:8123/otel --clickhouse-http-port 8124",
        ],
    )
    _add_settings(serve, [f.name for f in fields(Settings)])
    serve.set_defaults(run=_serve)
    chosen = None if argv is None else asked_for(argv)
    for name, (_, summary) in COMMANDS.items():
        if argv is None or name == chosen:
            register(commands, name)
        else:
            commands.add_parser(name, help=summary)
    return parser


def main(argv: list[str] | None = None) -> int:
    logging.basicConfig(level=logging.WARNING, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    argv = sys.argv[1:] if argv is None else argv
    args = build_parser(argv).parse_args(argv)
    try:
        run: Callable[[argparse.Namespace], int] = args.run
        return run(args)
    except ValueError as exc:
        print(f"harborlight: {exc}", file=sys.stderr)
        return 2
    except RecursionError:  # JSON or a span tree nested past Python's recursion limit, wherever it was read
        print("harborlight: the input nests deeper than harborlight reads (Python's recursion limit)", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
