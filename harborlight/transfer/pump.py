"""Sends requests to a sink a few at a time, so concurrent requests share group commits, and
tallies what the store said. Used by both importers; drain() before reporting or failing, so
everything sent before a bad piece of input is stored."""

import asyncio
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field

from harborlight.store import Signal
from harborlight.transfer.sink import Sent, Sink

IN_FLIGHT = 32  # bigger group commits; more bought little (8: 15.3, 32: 19.2, 64: 21.6 trials/s in bench/export)


@dataclass
class Tally:
    requests: int = 0
    stored: int = 0  # items accepted (duplicates included: they are stored, once)
    new: int = 0  # items of requests not stored before
    rejected: int = 0
    duplicates: int = 0  # requests that were already stored
    reasons: Counter = field(default_factory=Counter)

    def add(self, sent: Sent) -> None:
        self.requests += 1
        self.stored += sent.accepted
        self.new += 0 if sent.duplicate else sent.accepted
        self.rejected += sent.rejected
        self.duplicates += sent.duplicate
        message = sent.message.split(": ", 1)[1] if sent.message.startswith("rejected ") else sent.message
        for reason in filter(None, message.split("; ")):
            self.reasons[reason] += 1


class Pump:
    def __init__(self, sink: Sink, on_sent: Callable[[int], None] = lambda n: None, in_flight: int = IN_FLIGHT) -> None:
        self._sink = sink
        self._on_sent = on_sent
        self._slots = asyncio.Semaphore(in_flight)
        self._tasks: set[asyncio.Task] = set()
        self.tally = Tally()

    async def send(self, signal: Signal, body: bytes, weight: int = 1) -> None:
        await self._slots.acquire()
        self._raise_failures()
        task = asyncio.create_task(self._send(signal, body, weight))
        self._tasks.add(task)

    async def _send(self, signal: Signal, body: bytes, weight: int) -> None:
        try:
            self.tally.add(await self._sink.send(signal, body))
            self._on_sent(weight)
        finally:
            self._slots.release()

    def _raise_failures(self) -> None:
        for task in [t for t in self._tasks if t.done()]:
            self._tasks.discard(task)
            task.result()

    async def drain(self) -> None:
        if self._tasks:
            await asyncio.gather(*self._tasks, return_exceptions=True)
        self._raise_failures()
