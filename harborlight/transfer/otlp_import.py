"""`import otlp FILE...`: every file's export requests through the sink (the live ingest path)."""

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from harborlight.transfer.errors import TransferError
from harborlight.transfer.otlp_files import read_chunks
from harborlight.transfer.pump import Pump, Tally
from harborlight.transfer.sink import Sink


@dataclass(frozen=True)
class NamedData:
    name: str
    data: bytes


def read_files(paths: list[Path]) -> list[NamedData]:
    files = []
    for path in paths:
        try:
            files.append(NamedData(str(path), path.read_bytes()))
        except OSError as exc:
            raise TransferError(f"{path}: cannot read ({exc.strerror or exc})") from None
    return files


async def import_otlp(
    files: list[NamedData],
    sink: Sink,
    on_file: Callable[[int], None] = lambda n: None,
    max_bytes: int | None = None,
) -> Tally:
    """Stores every readable request; on a bad piece, what came before it stays stored and the
    TransferError is raised after the sends in flight are committed. `max_bytes`: see read_chunks."""
    pump = Pump(sink)
    try:
        for file in files:
            for chunk in read_chunks(file.name, file.data, max_bytes):
                await pump.send(chunk.signal, chunk.body)
            on_file(1)
    finally:
        await pump.drain()
    return pump.tally
