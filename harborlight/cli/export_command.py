"""`harborlight export-job JOB --out DIR [--snapshot]`: the job as a Harbor job directory DIR/<job>/. What
it reads and writes with is imported when it runs, not for its --help."""

import argparse
import asyncio
import sys
from contextlib import nullcontext
from pathlib import Path
from typing import Any
from urllib.parse import quote

from harborlight.cli.command_help import add_command
from harborlight.cli.transfer_access import add_store_options, server_client
from harborlight.transfer.errors import TransferError


async def _from_server(args: argparse.Namespace, out: Path) -> Path:
    from harborlight.transfer.job_dir_write import extract_job
    from harborlight.transfer.reach import cannot_reach

    async with server_client(args) as client:
        try:
            reply = await client.get(
                f"/api/jobs/{quote(args.job, safe='')}/export",
                params={"snapshot": str(args.snapshot).lower(), "jobs_dir": str(out)},
            )
        except Exception as exc:
            raise TransferError(cannot_reach(args.server, exc)) from None
    if reply.status_code == 401:
        raise TransferError(f"{args.server} asks for a token: pass --token")
    if reply.status_code != 200:
        try:
            detail = reply.json().get("detail")
        except ValueError:
            detail = reply.text.strip()[:200]
        raise TransferError(str(detail or f"HTTP {reply.status_code}"))
    return extract_job(reply.content, out, args.job)


def _write(args: argparse.Namespace, out: Path) -> Path:
    from harborlight.transfer.job_dir_write import write_job_dir
    from harborlight.transfer.local_store import open_local
    from harborlight.transfer.service import export_files

    if args.server:
        return asyncio.run(_from_server(args, out))
    store = open_local(args.data_dir, args.clickhouse_url, "export-job ...")
    try:
        files = export_files(store, args.job, str(out), "", args.snapshot, resolve=True)
    finally:
        store.client.close()
    return write_job_dir(out, args.job, files)


def _export(args: argparse.Namespace) -> int:
    from rich.console import Console

    from harborlight.transfer.dir_names import safe_name

    # A spinner on a terminal while the job is read and written; nothing when piped.
    status = Console(stderr=True)
    try:
        safe_name(args.job, "job")
        out = args.out.resolve()
        with status.status(f"exporting {args.job}") if status.is_terminal else nullcontext():
            target = _write(args, out)
    except TransferError as exc:
        print(f"harborlight: {exc}", file=sys.stderr)
        return 1
    trials = sum(1 for p in target.iterdir() if p.is_dir())
    running = sum(1 for p in target.iterdir() if p.is_dir() and not (p / "result.json").exists())
    print(f"harborlight: wrote {target} ({trials} trial(s)" + (f", {running} running" if running else "") + ")")
    return 0


def add_export_command(commands: Any) -> None:
    parser = add_command(
        commands,
        "export-job",
        "write a job as a Harbor job directory (DIR/<job>/)",
        [
            "harborlight export-job 2026-12-01__09-00-00 --out jobs/",
            "harborlight export-job 2026-12-01__09-00-00 --out jobs/ --snapshot --server http://127.0.0.1:4318",
        ],
    )
    parser.add_argument("job", metavar="JOB", help="the job name (harbor.job.name)")
    parser.add_argument("--out", type=Path, required=True, metavar="DIR", help="the jobs folder to write into")
    parser.add_argument(
        "--snapshot",
        action="store_true",
        help="also write result.json for trials still running (Harbor writes it at the end)",
    )
    add_store_options(parser)
    parser.set_defaults(run=_export)
