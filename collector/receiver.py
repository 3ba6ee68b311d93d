"""What gRPC and HTTP share: an export request's bytes in, an acknowledgement (or an error) out."""

import hashlib
from dataclasses import dataclass

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


class Receiver:
    def __init__(self, writer: Writer) -> None:
        self._writer = writer

    async def export(self, signal: Signal, body: bytes) -> ExportResult:
        """Validates, queues and waits for the commit; raises an IngestError for the wire."""
        spec = SIGNALS[signal]
        checked = check_request(spec, body)
        duplicate = False
        if checked.accepted:
            digest = hashlib.blake2b(body, digest_size=16).digest()
            duplicate = not await self._writer.write(signal, checked.payload, checked.accepted, digest)
        return ExportResult(spec, checked.accepted, checked.rejected, checked.message(spec.item), duplicate)
