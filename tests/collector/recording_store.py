"""A store double for the writer and committer tests: records each insert, deduplicates by token as
ClickHouse's insert deduplication does, and can be held, made to fail, refuse a request, or go away."""

import threading

from harborlight.wal import Record


class RecordingStore:
    def __init__(self) -> None:
        self.stored: list[bytes] = []  # payloads, in the order they were stored
        self.inserts: list[tuple[list[bytes], str]] = []  # every attempt: payloads and token
        self.tokens: set[str] = set()
        self.gate = threading.Event()  # cleared: inserts wait (a slow store)
        self.gate.set()
        self.entered = threading.Event()  # set when an insert begins (before it waits at the gate)
        self.failures_to_come = 0  # the next inserts that fail while the store answers
        self.down = False  # unreachable: inserts fail and reachable() says so
        self.refused: set[bytes] = set()  # payloads the store refuses in any batch
        self.fault: Exception | None = None  # raised by every insert while set (a full disk, say), store answering
        self.probe_fault: Exception | None = None  # raised by probe() while set
        self.probes = 0

    def insert(self, records: list[Record], token: str) -> None:
        self.entered.set()
        self.gate.wait(10)
        payloads = [r.payload for r in records]
        self.inserts.append((payloads, token))
        if self.down:
            raise ConnectionError("connection refused")
        if self.fault is not None:
            raise self.fault
        if self.failures_to_come:
            self.failures_to_come -= 1
            raise RuntimeError("MEMORY_LIMIT_EXCEEDED")
        if self.refused & set(payloads):
            raise RuntimeError("Cannot parse input")
        if token in self.tokens:
            return  # a retry of an insert that landed: skipped
        self.tokens.add(token)
        self.stored += payloads

    def reachable(self) -> bool:
        return not self.down

    def probe(self) -> None:
        self.probes += 1
        if self.probe_fault is not None:
            raise self.probe_fault
