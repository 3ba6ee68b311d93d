"""Futures that wait for a sequence number of the log to be reached (flushed to disk, stored)."""

import asyncio
from concurrent.futures import Future

Waiter = tuple[int, Future | asyncio.Future]


def resolve_through(waiters: list[Waiter], reached: int) -> list[Waiter]:
    """Resolves every future waiting for a sequence number up to `reached`; returns the others, in order."""
    waiting = []
    for seq, future in waiters:
        if seq > reached:
            waiting.append((seq, future))
        elif not future.done():
            future.set_result(None)
    return waiting
