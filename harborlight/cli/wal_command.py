"""`harborlight wal replay-rejected`: commits again the requests the committer set aside in the write-ahead
log's `rejected/` (acknowledged requests the store refused alone while it took other writes), once the cause
is fixed (a view that failed on them dropped, a column widened, a bug fixed).

Each set-aside request is appended to the log again, with its digest, tenant and signal as they were, and
made durable; then its file moves to `rejected/replayed/`. The next `harborlight serve` on that log commits
each alone under the deduplication token of its last attempt (kept beside it in `rejected/`), so the store
skips whatever of it had landed then (the raw rows are written before the views that may have refused
them), and a request the store holds already (replayed twice, or stored by a retry) is skipped by its
digest: each is stored once. The log is opened for the time of the command: stop the server that
uses it first (one process per log)."""

import argparse
import datetime
import os
import sys
from pathlib import Path
from typing import Any

from harborlight.cli.command_help import add_command
from harborlight.settings import Settings


def _rejected(wal_dir: Path) -> list[Path]:
    from harborlight.wal.segment import listed

    directory = wal_dir / "rejected"
    return [path for _, path in listed(directory)] if directory.is_dir() else []


def _records(path: Path):
    """The readable records of one set-aside file, with when they were first appended."""
    from harborlight.wal.record import Parsed
    from harborlight.wal.segment import MAGIC, Reader, frames

    with Reader(path) as reader:
        if not reader.has_magic():
            return []
        return [
            (f.record, f.appended_at_ns)
            for f, _ in frames(reader, len(MAGIC), path.stat().st_size)
            if isinstance(f, Parsed)
        ]


def _list(wal_dir: Path) -> int:
    files = _rejected(wal_dir)
    for path in files:
        for record, appended_at in _records(path):
            when = datetime.datetime.fromtimestamp(appended_at / 1e9, datetime.UTC).isoformat(timespec="seconds")
            print(
                f"{path.name}\t{record.signal.value}\t{record.tenant or '-'}\t{record.items} items\t"
                f"{len(record.payload)} bytes\tacknowledged {when}"
            )
    print(f"harborlight: {len(files)} request(s) set aside in {wal_dir / 'rejected'}", file=sys.stderr)
    return 0


def replay_rejected(wal_dir: Path) -> tuple[int, int]:
    """Appends every set-aside request to the log again and moves its file to rejected/replayed/; returns the
    files and the requests replayed. Raises LogInUse while a server holds the log."""
    from harborlight.wal import FsyncPolicy, WriteAheadLog

    files = _rejected(wal_dir)
    if not files:
        return 0, 0
    from harborlight.wal.durability import fsync_path
    from harborlight.wal.write_ahead_log import REPLAY_TOKENS, TOKEN_SUFFIX

    replayed_dir = wal_dir / "rejected" / "replayed"
    replayed_dir.mkdir(exist_ok=True)
    requests = 0
    with WriteAheadLog(wal_dir, FsyncPolicy.parse("always"), 1 << 62) as log:
        for path in files:
            records = _records(path)
            sidecar = path.with_name(path.name + TOKEN_SUFFIX)
            token = sidecar.read_text().strip() if sidecar.exists() else ""
            if token:  # known before the record is in the log: the committer takes it alone, under this token
                with open(wal_dir / REPLAY_TOKENS, "a") as tokens:
                    tokens.writelines(f"{r.digest.hex()} {token}\n" for r, _ in records)
                fsync_path(wal_dir / REPLAY_TOKENS)
            for record, _ in records:
                log.durable(log.append(record)).result()  # on disk before the set-aside copy moves
                requests += 1
            os.replace(path, replayed_dir / path.name)
            if sidecar.exists():
                os.replace(sidecar, replayed_dir / sidecar.name)
    return len(files), requests


def _run(args: argparse.Namespace) -> int:
    from harborlight.wal import LogInUse

    settings = Settings.resolve({"data_dir": args.data_dir, "wal_dir": args.wal_dir})
    wal_dir = settings.wal_directory
    if not wal_dir.is_dir():
        raise ValueError(f"no write-ahead log at {wal_dir} (give --wal-dir, or the --data-dir it is under)")
    if args.list:
        return _list(wal_dir)
    try:
        files, requests = replay_rejected(wal_dir)
    except LogInUse as exc:
        print(f"harborlight: {exc}: stop that server, replay, and start it again", file=sys.stderr)
        return 1
    print(
        f"harborlight: {requests} set-aside request(s) of {files} file(s) appended to the write-ahead log "
        f"{wal_dir}; the next `harborlight serve` on it stores them (those already stored are skipped)"
    )
    return 0


def add_wal_command(commands: Any) -> None:
    parser = add_command(
        commands,
        "wal",
        "the write-ahead log: commit again the requests the store refused",
        [
            "harborlight wal replay-rejected --data-dir harborlight-data",
            "harborlight wal replay-rejected --wal-dir /var/lib/harborlight/wal --list",
        ],
    )
    parser.add_argument(
        "action",
        choices=("replay-rejected",),
        help="append the requests set aside in <wal-dir>/rejected/ to the log again",
    )
    parser.add_argument("--data-dir", type=Path, default=None, help="the store's directory; the log is <data-dir>/wal")
    parser.add_argument("--wal-dir", type=Path, default=None, help="the write-ahead log's directory")
    parser.add_argument("--list", action="store_true", help="list the set-aside requests, replay nothing")
    parser.set_defaults(run=_run)
