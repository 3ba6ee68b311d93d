"""What gRPC and HTTP share: an export request's bytes in, an acknowledgement (or an error) out."""

import hashlib
from dataclasses import dataclass

from harborlight.commit.memory_guard import MemoryGuard
from harborlight.commit.writer import Writer
from harborlight.ingest.accounting import IngestCounters
from harborlight.ingest.auth import Caller
from harborlight.ingest.limits import Limits
from harborlight.ingest.signals import SIGNALS, SignalSpec
from harborlight.ingest.validate import check_request
from harborlight.store import Signal
from harborlight.write_errors import IngestError


@dataclass(frozen=True)
class ExportResult:
    spec: SignalSpec
    accepted: int
    rejected: int
    message: str
    duplicate: bool


OPEN = Caller(tenant=None)


class Receiver:
    def __init__(self, writer: Writer, limits: Limits = Limits(), memory: MemoryGuard | None = None) -> None:
        self._writer = writer
        self._limits = limits
        self.memory = memory
        self.counters = IngestCounters()

    async def export(self, signal: Signal, body: bytes, caller: Caller = OPEN) -> ExportResult:
        """Validates, queues and waits for the commit; raises an IngestError for the wire."""
        spec = SIGNALS[signal]
        tenant = caller.tenant or ""
        try:
            if self.memory:
                self.memory.check()
            checked = check_request(spec, body, self._limits)
            duplicate = False
            if checked.accepted:
                digest = hashlib.blake2b(body, digest_size=16, key=(caller.tenant or "").encode()).digest()
                duplicate = not await self._writer.write(
                    signal,
                    checked.payload,
                    checked.accepted,
                    digest,
                    caller.tenant,
                    checked.nested,
                    checked.expanded_bytes,
                )
        except IngestError as exc:
            self.counters.refuse(tenant, signal.value, type(exc).__name__)
            raise
        self.counters.count(tenant, signal.value, checked, duplicate)
        return ExportResult(spec, checked.accepted, checked.rejected, checked.message(spec.item), duplicate)
