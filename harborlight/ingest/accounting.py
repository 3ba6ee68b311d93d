"""Counts of what ingest received, accepted, rejected (by reason), truncated, deduplicated and refused,
per tenant, signal, service and job since start. The stored counts come from the tables themselves."""

from collections import Counter
from dataclasses import dataclass, field

from harborlight.ingest.validate import Checked

Source = tuple[str, str, str, str]  # (tenant, signal, service, job); '' where absent


@dataclass
class IngestCounters:
    received: Counter[Source] = field(default_factory=Counter)  # items
    accepted: Counter[Source] = field(default_factory=Counter)
    rejected: Counter[Source] = field(default_factory=Counter)
    truncated: Counter[Source] = field(default_factory=Counter)
    duplicate_requests: Counter[Source] = field(default_factory=Counter)
    rejected_reasons: Counter[tuple[str, str, str]] = field(default_factory=Counter)  # (tenant, signal, reason)
    refused_requests: Counter[tuple[str, str, str]] = field(default_factory=Counter)  # (tenant, signal, error)

    def count(self, tenant: str, signal: str, checked: Checked, duplicate: bool) -> None:
        for (service, job), counts in checked.sources.items():
            source = (tenant, signal, service, job)
            self.received[source] += counts.accepted + counts.rejected
            self.accepted[source] += counts.accepted
            self.rejected[source] += counts.rejected
            self.truncated[source] += counts.truncated
            if duplicate:
                self.duplicate_requests[source] += 1
        for reason in checked.reasons:
            self.rejected_reasons[(tenant, signal, reason)] += 1

    def refuse(self, tenant: str, signal: str, error: str) -> None:
        self.refused_requests[(tenant, signal, error)] += 1

    def snapshot(self, tenant: str | None = None) -> dict[str, list[dict[str, object]]]:
        """Per (signal, service, job) rows; only `tenant`'s when given."""

        def mine(key: tuple[str | None, ...]) -> bool:
            return tenant is None or key[0] == tenant

        sources = sorted(k for k in self.received if mine(k))
        return {
            "sources": [
                {
                    "signal": signal,
                    "service": service or None,
                    "job": job or None,
                    "received": self.received[k],
                    "accepted": self.accepted[k],
                    "rejected": self.rejected[k],
                    "truncated": self.truncated[k],
                    "duplicate_requests": self.duplicate_requests[k],
                }
                for k in sources
                for _, signal, service, job in [k]
            ],
            "rejected_reasons": [
                {"signal": s, "reason": r, "requests": n}
                for (t, s, r), n in self.rejected_reasons.most_common()
                if mine((t,))
            ],
            "refused_requests": [
                {"signal": s, "error": e, "requests": n}
                for (t, s, e), n in self.refused_requests.most_common()
                if mine((t,))
            ],
        }
