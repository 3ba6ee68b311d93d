"""Reads see what was acknowledged before them: a request is acknowledged once it is in the write-ahead
log, and stored a moment later by the committer, so a read first waits for the committer to catch up.

Past `timeout` seconds (the store is slow or away) the read goes ahead and its answer says how many
acknowledged requests it may not see, in the header X-Harborlight-Unstored-Requests.
"""

from collections.abc import Awaitable, Callable

from starlette.types import ASGIApp, Message, Receive, Scope, Send

HEADER = b"x-harborlight-unstored-requests"

# caught_up(timeout) waits until every request acknowledged so far is stored; returns how many are not
# when the timeout passes first, else 0.
CaughtUp = Callable[[float], Awaitable[int]]


class FreshReads:
    def __init__(
        self, app: ASGIApp, caught_up: CaughtUp, timeout: float, applies: Callable[[Scope], bool] = lambda scope: True
    ) -> None:
        self._app = app
        self._caught_up = caught_up
        self._timeout = timeout
        self._applies = applies

    @staticmethod
    def api_reads(scope: Scope) -> bool:
        """The API's GET routes (not the OTLP receivers, /healthz or /metrics)."""
        return scope["method"] == "GET" and scope["path"].startswith("/api/")

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or not self._applies(scope):
            await self._app(scope, receive, send)
            return
        unstored = await self._caught_up(self._timeout)
        if not unstored:
            await self._app(scope, receive, send)
            return

        async def send_saying_so(message: Message) -> None:
            if message["type"] == "http.response.start":
                message = {**message, "headers": [*message.get("headers", []), (HEADER, str(unstored).encode())]}
            await send(message)

        await self._app(scope, receive, send_saying_so)
