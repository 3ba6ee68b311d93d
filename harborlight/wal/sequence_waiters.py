"""Futures that wait for a sequence number of the log to be reached (flushed to disk, stored)."""

import asyncio
from concurrent.futures import Future

Waiter = tuple[int, Future[None] | asyncio.Future[None]]


def resolve_through[W: Future[None] | asyncio.Future[None]](
    waiters: list[tuple[int, W]], reached: int
) -> list[tuple[int, W]]:
    """Resolves every future waiting for a sequence number up to `reached`; returns the others, in order."""
    waiting = []
    for seq, future in waiters:
        if seq > reached:
            waiting.append((seq, future))
        elif not future.done():
            future.set_result(None)
    return waiting
