"""An httpx transport that calls an ASGI app in this process: how the CLI asks the API of a store it reads
itself (harborlight/cli/api_access.py), with no server and no test client."""

import asyncio

import httpx
from starlette.types import ASGIApp


class InProcess(httpx.BaseTransport):
    """httpx's ASGITransport (async only) driven by this transport's own event loop: each request runs to its
    end, its body read, before it returns. An exception the app raises reaches the caller."""

    def __init__(self, app: ASGIApp) -> None:
        self._asgi = httpx.ASGITransport(app=app)
        self._loop = asyncio.new_event_loop()

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        sent = httpx.Request(request.method, request.url, headers=request.headers, content=request.read())

        async def call() -> httpx.Response:
            reply = await self._asgi.handle_async_request(sent)
            return httpx.Response(reply.status_code, headers=reply.headers, content=await reply.aread())

        return self._loop.run_until_complete(call())

    def close(self) -> None:
        self._loop.run_until_complete(self._loop.shutdown_default_executor())
        self._loop.close()
