"""When the log's bytes reach the disk: the fsync policy, and the thread that flushes by it.

A process kill loses nothing a write() returned for (the kernel holds the bytes); a power loss loses
what no fsync covered yet. `always` acknowledges after the fsync that covers the request (one fsync
serves every request written before it started); an interval flushes in the background that often
and acknowledges at once; `never` leaves it to the kernel's writeback (Linux: within ~30 s).
"""

import logging
import os
import threading
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass
from pathlib import Path

from harborlight.wal.sequence_waiters import resolve_through
from harborlight.write_errors import LogUnwritable

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class FsyncPolicy:
    interval_ms: int | None  # 0: before every acknowledgement; None: never

    @classmethod
    def parse(cls, text: str) -> "FsyncPolicy":
        """`always`, `never`, or a whole number of milliseconds."""
        word = text.strip().lower()
        if word == "always":
            return cls(0)
        if word == "never":
            return cls(None)
        if word.isdigit() and int(word) > 0:
            return cls(int(word))
        raise ValueError(f"fsync policy must be 'always', 'never' or milliseconds > 0, not {text!r}")

    def __str__(self) -> str:
        return {0: "always", None: "never"}.get(self.interval_ms, f"{self.interval_ms} ms")


def fsync_path(path: Path) -> None:
    """fsync(2) by path: a file's bytes, or a directory's names (a file created or renamed in it)."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


# sync() makes every record written so far durable and returns the highest sequence number it covered.
Sync = Callable[[], int]


class Flusher:
    """Calls sync() when a request waits for it (`always`), or every interval."""

    def __init__(self, sync: Sync, interval_s: float | None) -> None:
        self._sync = sync
        self._interval = interval_s
        self._cond = threading.Condition()
        self._waiters: list[tuple[int, Future[None]]] = []
        self._stopping = False
        self._thread = threading.Thread(target=self._run, name="harborlight-wal-fsync", daemon=True)
        self._thread.start()

    def wait(self, seq: int) -> Future[None]:
        """Resolves once record `seq` is on disk, or fails with the fsync's error."""
        future: Future[None] = Future()
        with self._cond:
            self._waiters.append((seq, future))
            self._cond.notify()
        return future

    def close(self) -> None:
        """Stops after one last flush of whatever waits."""
        with self._cond:
            self._stopping = True
            self._cond.notify()
        self._thread.join()

    def _run(self) -> None:
        while True:
            with self._cond:
                if not self._waiters and not self._stopping:
                    self._cond.wait(self._interval)
                waiters, self._waiters = self._waiters, []
                stopping = self._stopping
            self._flush(waiters)
            if stopping:
                return

    def _flush(self, waiters: list[tuple[int, Future[None]]]) -> None:
        try:
            durable = self._sync()
        except OSError as exc:  # the bytes may never reach the disk: say so to whoever waits, retryably
            log.error("write-ahead log fsync failed: %s", exc)
            for _, future in waiters:
                refusal = LogUnwritable(
                    f"the write-ahead log's disk did not take this request's bytes ({exc.strerror or exc}); retry later"
                )
                refusal.__cause__ = exc
                future.set_exception(refusal)
            return
        if late := resolve_through(waiters, durable):
            with self._cond:
                self._waiters[:0] = late
