"""Refuses new requests, retryably, while the process is near its memory limit.

Like the Collector's memory_limiter: above the soft limit (a share of the hard one) new export
requests get UNAVAILABLE / 503 with Retry-After, so exporters keep their data and retry later, while
requests already accepted are still committed. Reads the resident set size from /proc, which costs
microseconds.
"""

import os
from pathlib import Path

from harborlight.write_errors import MemoryHigh

_PAGE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096
_STATM = Path("/proc/self/statm")


def rss_bytes() -> int:
    try:
        return int(_STATM.read_text().split()[1]) * _PAGE
    except (OSError, IndexError, ValueError):
        return 0  # not Linux: no guard


class MemoryGuard:
    def __init__(self, limit_bytes: int, soft_share: float = 0.8, purge_share: float = 0.6) -> None:
        self.limit_bytes = limit_bytes
        self.soft_bytes = int(limit_bytes * soft_share)
        self.purge_bytes = int(limit_bytes * purge_share)
        self.refusals = 0
        self.peak_bytes = 0

    def wants_purge(self) -> bool:
        """Above this the writer asks the engine to hand cached memory back after its commit."""
        return rss_bytes() > self.purge_bytes

    def check(self) -> None:
        rss = rss_bytes()
        self.peak_bytes = max(self.peak_bytes, rss)
        if rss > self.soft_bytes:
            self.refusals += 1
            raise MemoryHigh(
                f"harborlight is near its memory limit ({rss >> 20} of {self.limit_bytes >> 20} MiB); retry later"
            )
