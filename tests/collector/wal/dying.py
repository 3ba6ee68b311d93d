"""Runs a snippet against a write-ahead log in a process that then dies without closing anything (as a
crash does: the kernel closes its files, nothing of the log's own shutdown runs)."""

import os
import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
_PRELUDE = """
import os, sys
from pathlib import Path
from harborlight.wal import FsyncPolicy, WriteAheadLog
from tests.collector.wal.dying import record
log = WriteAheadLog(Path(sys.argv[1]), FsyncPolicy.parse("never"), 1 << 20)
"""


def record(i: int):
    from harborlight.store import Signal
    from harborlight.wal import Record

    return Record(Signal.traces, None, i.to_bytes(16, "big"), 1, b"r%d" % i)


def run_and_die(directory: Path, snippet: str) -> str:
    """Runs `snippet` (with `log`, `record` at hand), then exits at once; returns what it printed."""
    code = _PRELUDE + textwrap.dedent(snippet) + "\nsys.stdout.flush()\nos._exit(0)\n"
    done = subprocess.run(
        [sys.executable, "-c", code, str(directory)],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        cwd=ROOT,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout
