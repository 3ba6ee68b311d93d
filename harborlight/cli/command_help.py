"""One way every command is registered: its summary (in `harborlight --help` and atop its own `--help`)
and the examples its `--help` ends with, which tests/cli parse so that none goes stale."""

import argparse
from typing import Any


def add_command(commands: Any, name: str, summary: str, examples: list[str]) -> argparse.ArgumentParser:
    """A subcommand of `commands` (argparse subparsers) whose `--help` shows `summary` and `examples`."""
    epilog = "examples:\n" + "\n".join(f"  {line}" for line in examples)
    return commands.add_parser(
        name, help=summary, description=summary, epilog=epilog, formatter_class=argparse.RawDescriptionHelpFormatter
    )
