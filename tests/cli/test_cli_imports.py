"""The CLI loads only what a command needs: `harborlight --help` and each command's `--help` (the query
commands, and those that write to or read the store directly: import, export-job, schema) import no engine,
no server, no Arrow, no gRPC (each checked in a fresh interpreter's sys.modules, not by timing), and `--help`
lists each command with the summary its own module registers."""

import subprocess
import sys

import pytest

from harborlight.cli.main import COMMANDS, build_parser
from harborlight.cli.schema_command import SHARD_BY
from harborlight.store.schema_ddl import SHARD_KEYS

HEAVY = ("chdb", "fastapi", "pyarrow", "grpc", "clickhouse_connect")

_PROBE = """
import sys
from harborlight.cli.main import main
try:
    main(sys.argv[1:])
except SystemExit:
    pass
print("loaded:", *sorted(m for m in sys.modules if m.split(".")[0] in {heavy!r}))
"""


def _heavy_modules_after(*argv: str) -> list[str]:
    done = subprocess.run(
        [sys.executable, "-c", _PROBE.format(heavy=set(HEAVY)), *argv],
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    return done.stdout.rsplit("loaded:", 1)[1].split()


@pytest.mark.parametrize(
    "argv",
    [
        ("--help",),
        ("jobs", "--help"),
        ("trial", "--help"),
        ("spans", "--help"),
        ("import", "--help"),
        ("import", "otlp", "--help"),
        ("import", "harbor", "--help"),
        ("export-job", "--help"),
        ("schema", "--help"),
    ],
    ids=" ".join,
)
def test_help_imports_no_engine_server_arrow_or_grpc(argv):
    loaded = _heavy_modules_after(*argv)
    assert not loaded, f"harborlight {' '.join(argv)} imported {loaded[:8]}"


def test_each_listed_summary_is_the_one_its_module_registers():
    registered = {a.dest: a.help for a in build_parser()._subparsers._group_actions[0]._choices_actions}
    listed = {a.dest: a.help for a in build_parser(["--help"])._subparsers._group_actions[0]._choices_actions}
    assert listed == registered
    assert set(COMMANDS) | {"serve"} == set(registered)


def test_schema_offers_every_sharding_key_the_ddl_knows():
    """`schema --shard-by` lists its choices without importing the DDL builders: the same keys."""
    assert tuple(SHARD_KEYS) == SHARD_BY
