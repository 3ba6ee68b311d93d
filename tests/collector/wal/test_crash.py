"""SIGKILL a process that appends to the log in a loop, again and again (also mid-write: its records are
large, so a write is in progress much of the time): every record whose append returned is there after
recovery, exactly once, and nothing else is read but whole records that process appended."""

import os
import random
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

from harborlight.store import Signal
from harborlight.wal import FsyncPolicy, Record, WriteAheadLog

ROOT = Path(__file__).resolve().parents[3]

# Appends records 0, 1, 2, ... (continuing after what the log holds) and prints each number once its
# append has returned, and once durable() says it would survive a power loss.
APPENDER = """
import sys
from pathlib import Path
from harborlight.wal import FsyncPolicy, WriteAheadLog
from tests.collector.wal.test_crash import record
log = WriteAheadLog(Path(sys.argv[1]), FsyncPolicy.parse(sys.argv[2]), 1 << 40, segment_bytes=8 << 20)
n = int(sys.argv[3])
print("ready", flush=True)
while True:
    seq = log.append(record(n))
    durable = log.durable(seq)
    if durable is not None:
        durable.result()
    print(n, flush=True)
    n += 1
"""


def record(n: int) -> Record:
    """Record n, rebuilt from n alone: up to 2 MiB, so that a kill often lands inside its write."""
    size = random.Random(n).randrange(1, 2 << 20)
    payload = n.to_bytes(8, "big") * (size // 8 + 1)
    return Record(Signal.traces, f"tenant-{n % 3}", n.to_bytes(16, "big"), n % 1000, payload)


def _run_and_kill(directory: Path, policy: str, start: int, delay: float) -> list[int]:
    """Starts an appender, SIGKILLs it after `delay` seconds; returns the numbers it acknowledged."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    acknowledged: list[int] = []
    # on leaving the block, its stdout pipe is closed and the child waited for
    with subprocess.Popen(
        [sys.executable, "-c", APPENDER, str(directory), policy, str(start)], stdout=subprocess.PIPE, env=env, cwd=ROOT
    ) as child:
        assert child.stdout.readline() == b"ready\n"

        def read() -> None:  # a cut last line: not acknowledged
            acknowledged.extend(int(line) for line in child.stdout if line.endswith(b"\n"))

        reader = threading.Thread(target=read)
        reader.start()
        time.sleep(delay)
        child.send_signal(signal.SIGKILL)
        child.wait()
        reader.join()
    return acknowledged


def test_every_acknowledged_append_survives_sigkill_exactly_once_and_nothing_else_is_read(tmp_path):
    """Nine kills at least, more until one has landed inside a write (a torn tail cut at recovery)."""
    rng = random.Random(17)
    acknowledged = torn_tails = kills = next_number = 0
    while kills < 9 or (not torn_tails and kills < 30):
        policy = ["never", "20", "always"][kills % 3]
        acked = _run_and_kill(tmp_path, policy, next_number, 0.3 + rng.random())
        kills += 1
        with WriteAheadLog(tmp_path, FsyncPolicy.parse("never"), 1 << 40, segment_bytes=8 << 20) as log:
            torn_tails += sum("torn tail" in d.reason for d in log.recovered.damage)
            numbers = []
            while batch := log.take(10**12, 10**15):
                for entry in batch:
                    n = int.from_bytes(entry.record.digest, "big")
                    assert entry.record == record(n), f"record {n} came back different from what was appended"
                    numbers.append(n)
                log.release(batch[-1])  # as the committer would: the next round's log holds that round's only
        assert numbers == list(range(next_number, next_number + len(numbers))), "read twice, out of order, or lost"
        assert set(acked) <= set(numbers), f"acknowledged, then lost: {sorted(set(acked) - set(numbers))}"
        acknowledged += len(acked)
        next_number += len(numbers)
    assert acknowledged > 2 * kills, "too few appends between kills to prove anything"
    assert torn_tails, "no kill landed inside a write in 30 tries"
    print(
        f"wal crash loop: {kills} kills, {acknowledged} acknowledged appends intact, "
        f"{next_number} records recovered, {torn_tails} torn tails cut"
    )
