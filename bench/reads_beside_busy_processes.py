"""How long one SQL-interface statement takes while other processes keep every core busy, measured in one run.

Starts `harborlight serve --clickhouse-http-port` (a subprocess, its own embedded store), times a CPU-bound
statement alone, then beside `--busy` processes that spin at the default nice (the agents under evaluation,
the other services of the machine). Prints the medians and their ratio: a statement whose threads ran niced
(nice 19) waited for every busy process on the machine, and Grafana's panels with it.

Usage: python bench/reads_beside_busy_processes.py [--busy 2] [--rows 100000000]
"""

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from tests.support.servers import SubprocessServer, free_port  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--busy", type=int, default=2, help="busy processes beside the statement")
    parser.add_argument("--rows", type=int, default=100_000_000, help="rows the statement hashes")
    args = parser.parse_args()
    sql = f"SELECT count() FROM numbers({args.rows}) WHERE sipHash64(number) % 7 = 3"
    port = free_port()
    server = SubprocessServer(Path(tempfile.mkdtemp()) / "store", ("--clickhouse-http-port", str(port))).start()

    def timed() -> float:
        started = time.monotonic()
        answer = httpx.post(f"http://127.0.0.1:{port}/", content=sql, timeout=900)
        assert answer.status_code == 200, answer.text
        return time.monotonic() - started

    try:
        timed()  # warm
        alone = statistics.median(timed() for _ in range(3))
        busy = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(args.busy)]
        try:
            beside = statistics.median(timed() for _ in range(3))
        finally:
            for process in busy:
                process.kill()
        print(f"alone {alone:.2f} s; beside {args.busy} busy processes {beside:.2f} s ({beside / alone:.1f}x)")
    finally:
        server.stop()


if __name__ == "__main__":
    main()
