"""The threads the ClickHouse-compatible SQL interface runs its statements on: a bounded pool of its own.

A statement can run for as long as the caller likes (sleepEachRow, a scan of everything), and it holds its
thread meanwhile. On a pool of their own, a flood of slow statements waits for these threads only: never
for the writer's commits, the API routes' threads or the live feed's reads. The statements past the bound
wait in line; each holds an HTTP connection, which the server's connection cap bounds.
"""

import asyncio
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

SQL_THREADS = 4  # Grafana sends a dashboard's panels at once; more at a time would only share the same cores
_pool = ThreadPoolExecutor(SQL_THREADS, thread_name_prefix="harborlight-sql")


async def run_statement[T](handle: Callable[..., T], *args) -> T:
    return await asyncio.get_running_loop().run_in_executor(_pool, handle, *args)
