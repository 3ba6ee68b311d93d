"""What gRPC and HTTP share: an export request's bytes in, an acknowledgement (or an error) out."""

import hashlib
from dataclasses import dataclass

from collector.accounting import IngestCounters
from collector.auth import Caller
from collector.errors import IngestError
from collector.signals import SIGNALS, SignalSpec
from collector.validate import check_request
from collector.writer import Writer
from storage import Signal


@dataclass(frozen=True)
class ExportResult:
    spec: SignalSpec
    accepted: int
    rejected: int
    message: str
    duplicate: bool


OPEN = Caller(tenant=None)


class Receiver:
    def __init__(self, writer: Writer, counters: IngestCounters | None = None) -> None:
        self._writer = writer
        self.counters = counters or IngestCounters()

    async def export(self, signal: Signal, body: bytes, caller: Caller = OPEN) -> ExportResult:
        """Validates, queues and waits for the commit; raises an IngestError for the wire."""
        spec = SIGNALS[signal]
        try:
            checked = check_request(spec, body)
            duplicate = False
            if checked.accepted:
                digest = hashlib.blake2b(body, digest_size=16, key=(caller.tenant or "").encode()).digest()
                duplicate = not await self._writer.write(
                    signal, checked.payload, checked.accepted, digest, caller.tenant
                )
        except IngestError as exc:
            self.counters.refused_requests[(signal.value, type(exc).__name__)] += 1
            raise
        self._count(signal, checked, duplicate)
        return ExportResult(spec, checked.accepted, checked.rejected, checked.message(spec.item), duplicate)

    def _count(self, signal: Signal, checked, duplicate: bool) -> None:
        c = self.counters
        c.received[signal.value] += checked.accepted + checked.rejected
        c.accepted[signal.value] += checked.accepted
        c.rejected[signal.value] += checked.rejected
        for reason in checked.reasons:
            c.rejected_reasons[(signal.value, reason)] += 1
        if duplicate:
            c.duplicate_requests[signal.value] += 1
