"""`harborlight ...`: the command line. Bad input is one line on stderr and a non-zero exit."""

import argparse
import asyncio
import logging
import signal
import sys
from dataclasses import fields
from pathlib import Path
from typing import NoReturn

from harborlight.cli.command_help import add_command
from harborlight.cli.compare_command import add_compare_command
from harborlight.cli.export_command import add_export_command
from harborlight.cli.import_command import add_import_command
from harborlight.cli.jobs_command import add_jobs_command
from harborlight.cli.report_command import add_report_command
from harborlight.cli.schema_command import add_schema_command
from harborlight.settings import Settings, env_name, flag_name
from harborlight.cli.spans_command import add_spans_command
from harborlight.cli.trace_command import add_trace_command
from harborlight.cli.trial_command import add_trial_command
from harborlight.cli.wal_command import add_wal_command
from harborlight.cli.watch_command import add_watch_command


class OneLineParser(argparse.ArgumentParser):
    """A bad flag is one line on stderr (argparse would print the usage block first); exit 2."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"harborlight: {message} (see: {self.prog} --help)\n")


def _add_settings(parser: argparse.ArgumentParser, names: list[str]) -> None:
    for f in fields(Settings):
        if f.name in names:
            kind = Path if "Path" in str(f.type) else int if "int" in str(f.type) else str
            parser.add_argument(
                flag_name(f.name), dest=f.name, type=kind, default=None,
                help=f"{f.metadata['help']} (env {env_name(f.name)}, default {f.default})",
            )


def _serve(args: argparse.Namespace) -> int:
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


def build_parser() -> argparse.ArgumentParser:
    parser = OneLineParser(prog="harborlight", description="Observability backend for AI agents.")
    commands = parser.add_subparsers(dest="command", required=True)
    serve = add_command(commands, "serve", "receive OTLP and answer the API", [
        "harborlight serve",
        "harborlight serve --host 0.0.0.0 --data-dir /var/lib/harborlight --tokens-file tokens   # lines: TOKEN TENANT",
        "harborlight serve --clickhouse-url http://default:secret@clickhouse:8123/otel --clickhouse-http-port 8124",
    ])
    _add_settings(serve, [f.name for f in fields(Settings)])
    serve.set_defaults(run=_serve)
    add_report_command(commands)
    add_spans_command(commands)
    add_trial_command(commands)
    add_trace_command(commands)
    add_jobs_command(commands)
    add_compare_command(commands)
    add_watch_command(commands)
    add_import_command(commands)
    add_export_command(commands)
    add_schema_command(commands)
    add_wal_command(commands)
    return parser


def main(argv: list[str] | None = None) -> int:
    logging.basicConfig(level=logging.WARNING, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    args = build_parser().parse_args(argv)
    try:
        return args.run(args)
    except ValueError as exc:
        print(f"harborlight: {exc}", file=sys.stderr)
        return 2
    except RecursionError:  # JSON or a span tree nested past Python's recursion limit, wherever it was read
        print("harborlight: the input nests deeper than harborlight reads (Python's recursion limit)",
              file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
