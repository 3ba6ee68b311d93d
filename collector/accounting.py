"""Counts of what ingest received, accepted, rejected (by reason), deduplicated and refused.

In-process counters since start; the stored counts come from the tables themselves.
"""

from collections import Counter
from dataclasses import dataclass, field


@dataclass
class IngestCounters:
    received: Counter = field(default_factory=Counter)  # items per signal
    accepted: Counter = field(default_factory=Counter)
    rejected: Counter = field(default_factory=Counter)
    rejected_reasons: Counter = field(default_factory=Counter)  # (signal, reason) -> items
    duplicate_requests: Counter = field(default_factory=Counter)
    refused_requests: Counter = field(default_factory=Counter)  # (signal, error class) -> requests

    def snapshot(self) -> dict:
        return {
            "received_items": dict(self.received),
            "accepted_items": dict(self.accepted),
            "rejected_items": dict(self.rejected),
            "rejected_reasons": [
                {"signal": s, "reason": r, "items": n} for (s, r), n in self.rejected_reasons.most_common()
            ],
            "duplicate_requests": dict(self.duplicate_requests),
            "refused_requests": [
                {"signal": s, "error": e, "requests": n} for (s, e), n in self.refused_requests.most_common()
            ],
        }
