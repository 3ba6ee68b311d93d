"""One reading of an ISO 8601 timestamp (an ATIF step's, as the trajectory has it) as UNIX nanoseconds:
the step clock of the trajectory's spans (harborlight/transfer/trajectory_spans.py) and of `steps[].dur`
(harborlight/read/derive/trajectory_steps.py). A stamp without a zone names no instant (read in this machine's zone
it would move with the server), so it is refused with the reason, as is anything that is not ISO 8601."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from harborlight.read.derive.provenance import Valued, measured, unavailable


def stamp_ns(stamp: Any) -> Valued[int]:
    """The instant `stamp` names, in UNIX nanoseconds (microsecond precision, as ISO 8601 parses here),
    or null with why not: no timestamp, not ISO 8601, or no zone."""
    if not isinstance(stamp, str) or not stamp:
        return unavailable("no timestamp")
    try:
        moment = datetime.fromisoformat(stamp.replace("Z", "+00:00"))
    except ValueError:
        return unavailable(f"not an ISO 8601 timestamp: {stamp!r}")
    if moment.tzinfo is None:
        return unavailable(f"a timestamp without a zone names no instant: {stamp!r}")
    whole = moment.replace(microsecond=0)
    return measured(int(whole.timestamp()) * 1_000_000_000 + moment.microsecond * 1000)
