"""One trial's reads, this code against another checkout of harborlight, on copies of one generated store, the two
servers taking turns call by call (a change in the machine's load falls on both alike); medians and their ratios.

The store is bench/query.py's job whose every call is told twice (--twins: Claude Code trials streaming spans and
log events), or its plain job. Each server runs its own code from its own working directory, so `python -m` finds
that checkout first (a server started from this repository's root would run this code whatever PYTHONPATH says).

Usage: python bench/reads_against.py --other DIR [--trials 40] [--calls 200] [--plain] [--runs 7]
       (DIR: e.g. `git worktree add /tmp/before <commit>`)
"""

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
from tests.support.servers import SubprocessServer  # noqa: E402


def _serve(code: Path, data_dir: Path) -> SubprocessServer:
    """A server of the checkout `code` on `data_dir` (started from that checkout, with it on PYTHONPATH)."""
    here, path = os.getcwd(), os.environ.get("PYTHONPATH")
    os.chdir(code)
    os.environ["PYTHONPATH"] = str(code)
    try:
        return SubprocessServer(data_dir).start(timeout=600)
    finally:
        os.chdir(here)
        if path is None:
            os.environ.pop("PYTHONPATH", None)
        else:
            os.environ["PYTHONPATH"] = path


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--other", type=Path, required=True, help="another checkout of harborlight")
    parser.add_argument("--trials", type=int, default=40)
    parser.add_argument("--calls", type=int, default=200, help="calls per trial (the twin job)")
    parser.add_argument("--plain", action="store_true", help="bench/query.py's plain job instead of the twin job")
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="reads-against-"))
    generate = [sys.executable, str(HERE / "query.py"), "--generate-only", "--data-dir", str(work / "this")]
    generate += ["--trials", str(args.trials)]
    generate += ["--events", "1040"] if args.plain else ["--twins", "--calls", str(args.calls)]
    subprocess.run(generate, check=True, stdout=subprocess.DEVNULL)
    shutil.copytree(work / "this", work / "other", symlinks=True)  # (the engine links metadata to its store)
    job = "bench-query-job" if args.plain else "bench-twins-job"
    servers = {"this": _serve(HERE.parent, work / "this"), "other": _serve(args.other.resolve(), work / "other")}
    try:
        clients = {k: httpx.Client(base_url=s.http_url, timeout=600) for k, s in servers.items()}
        trial = clients["this"].get(f"/api/jobs/{job}/trials", params={"limit": 1}).json()["items"][0]["trial"]
        clients["other"].get(f"/api/jobs/{job}/trials", params={"limit": 1})  # each derives its rows first
        reads = [
            ("one trial's row", f"/api/trials/{trial}", {}),
            ("one trial's behaviour", f"/api/trials/{trial}/behavior", {}),
            ("one trial's trace", f"/api/trials/{trial}/trace", {}),
            ("one trial's trajectory", f"/api/trials/{trial}/trajectory", {}),
            ("one trial's time split", f"/api/trials/{trial}/time", {}),
            ("one trial's tool calls", "/api/spans", {"trial": trial, "kind": "tool", "limit": 1000}),
            ("the job's time split", f"/api/jobs/{job}/time", {}),
        ]
        print(f"{'read':<26} {'other ms':>9} {'this ms':>9} {'this/other':>11}   ({job}, medians of {args.runs})")
        for label, path, params in reads:
            seconds: dict[str, list[float]] = {"this": [], "other": []}
            for _ in range(args.runs):
                for name, client in clients.items():
                    began = time.perf_counter()
                    answer = client.get(path, params=params)
                    seconds[name].append(time.perf_counter() - began)
                    assert answer.status_code == 200, answer.text[:300]
            other, this = (statistics.median(seconds[k]) for k in ("other", "this"))
            print(f"{label:<26} {other * 1000:>9.1f} {this * 1000:>9.1f} {this / other:>11.2f}")
    finally:
        for server in servers.values():
            server.stop()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
