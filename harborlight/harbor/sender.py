"""Where the Harbor plugin's requests go, and how they get there without the job waiting on them.

Targets follow the OpenTelemetry exporter's environment variables (the SDK configuration spec):
OTEL_EXPORTER_OTLP_ENDPOINT / _{TRACES,LOGS}_ENDPOINT, _PROTOCOL (`grpc` or `http/protobuf`; the
default `http/protobuf`), _HEADERS, _TIMEOUT (milliseconds, default 10,000), _COMPRESSION (`gzip`,
`none`) and, for gRPC endpoints without a scheme, _INSECURE; the plugin's own kwargs (`endpoint`,
`protocol`, `token`, `timeout` in seconds) take their place when given.

The Sender runs on a thread of its own with its own event loop: a trial's hook only hands it a batch
(put, never waits); a bounded number of requests wait (a batch that would exceed the bound is
dropped and counted), each request has a deadline, and `close` waits for what is queued at most
`end_timeout` seconds, then drops the rest (counted). gRPC goes through grpcio with the request's
bytes as they are (the store acknowledges a request it holds by its bytes, so a later import of the
job directory stores nothing again); OTLP/HTTP through httpx.
"""

import asyncio
import contextlib
import gzip
import logging
import os
import threading
from dataclasses import dataclass
from urllib.parse import unquote, urlparse

import grpc
import httpx
from google.protobuf.message import DecodeError

from harborlight.ingest.signals import SIGNALS
from harborlight.store import Signal

log = logging.getLogger("harborlight.harbor.plugin")

GRPC, HTTP = "grpc", "http/protobuf"
PROTOCOLS = (GRPC, HTTP)
DEFAULT_TIMEOUT = 10.0  # seconds a request may take: OTEL_EXPORTER_OTLP_TIMEOUT's default
DEFAULT_END_TIMEOUT = 30.0  # seconds the job's end waits, at most, for what is still queued
DEFAULT_QUEUE_SIZE = 1000  # requests waiting to be sent, at most
PROBE_TIMEOUT = 5.0  # seconds the job's start waits, at most, for harborlight to answer an empty request
WORKERS = 4  # batches sent at once (a trial's batches, in order, by one of them)
SHOWN_FAILURES = 10  # requests not taken that are logged one by one; the rest are counted (the end's line)
_PATHS = {Signal.traces: "/v1/traces", Signal.logs: "/v1/logs"}


@dataclass(frozen=True)
class Target:
    """One signal's destination: `endpoint` is the URL posted to (OTLP/HTTP) or the gRPC target."""

    signal: Signal
    protocol: str
    endpoint: str
    headers: tuple[tuple[str, str], ...] = ()
    timeout: float = DEFAULT_TIMEOUT
    gzip: bool = False
    insecure: bool = True  # gRPC only: no TLS

    def describe(self) -> str:
        return f"{self.endpoint} over {'OTLP/gRPC' if self.protocol == GRPC else 'OTLP/HTTP (http/protobuf)'}"


def parse_headers(value: str) -> dict[str, str]:
    """OTEL_EXPORTER_OTLP_HEADERS: comma-separated key=value pairs, values URL-encoded (the spec's form)."""
    pairs = (pair.partition("=") for pair in value.split(",") if "=" in pair)
    return {key.strip(): unquote(v.strip()) for key, _, v in pairs if key.strip()}


def _env(environ: dict[str, str], signal: Signal, name: str) -> str | None:
    """The signal's own variable, else the general one (empty counts as unset)."""
    for key in (f"OTEL_EXPORTER_OTLP_{signal.value.upper()}_{name}", f"OTEL_EXPORTER_OTLP_{name}"):
        if environ.get(key, "").strip():
            return environ[key].strip()
    return None


def _protocol(value: str | None, source: str, strict: bool) -> str:
    if value is None:
        return HTTP
    if value in PROTOCOLS:
        return value
    message = f"harborlight plugin: {source}={value!r} is not a protocol it speaks ({' or '.join(PROTOCOLS)})"
    if strict:
        raise ValueError(message)
    log.warning("%s; it sends %s", message, HTTP)
    return HTTP


def _grpc_endpoint(url: str, insecure_setting: str | None) -> tuple[str, bool]:
    """As the SDK's gRPC exporter reads it: a URL's host:port, TLS unless its scheme is http; an
    endpoint without a scheme is TLS unless OTEL_EXPORTER_OTLP_INSECURE is true."""
    parsed = urlparse(url)
    if parsed.scheme in ("http", "https") and parsed.netloc:
        return parsed.netloc, parsed.scheme == "http"
    return url, (insecure_setting or "").lower() == "true"


def targets(
    endpoint: str | None, protocol: str | None, token: str | None, timeout: float | None, environ: dict[str, str]
) -> dict[Signal, Target]:
    """Where each signal goes: a base URL given to the plugin (and its protocol, http/protobuf unless
    given), else the exporter's variables (a per-signal URL is used as it is; over OTLP/HTTP the base
    one gets the signal's path)."""
    chosen = {}
    for signal, path in _PATHS.items():
        if endpoint:
            url, kind = endpoint, _protocol(protocol, "protocol", strict=True)
            own = False
        else:
            own_url = environ.get(f"OTEL_EXPORTER_OTLP_{signal.value.upper()}_ENDPOINT", "").strip()
            url, own = own_url or environ.get("OTEL_EXPORTER_OTLP_ENDPOINT", "").strip(), bool(own_url)
            kind = (
                _protocol(protocol, "protocol", strict=True)
                if protocol
                else _protocol(
                    _env(environ, signal, "PROTOCOL"),
                    f"OTEL_EXPORTER_OTLP_{signal.value.upper()}_PROTOCOL",
                    strict=False,
                )
            )
        if not url:
            raise ValueError(
                "harborlight plugin: no endpoint; pass --plugin-kwarg endpoint=http://HOST:4318 "
                "or set OTEL_EXPORTER_OTLP_ENDPOINT"
            )
        if token is not None:
            headers = {"authorization": f"Bearer {token}"}
        else:
            headers = {k.lower(): v for k, v in parse_headers(environ.get("OTEL_EXPORTER_OTLP_HEADERS", "")).items()}
            headers.update(
                {
                    k.lower(): v
                    for k, v in parse_headers(
                        environ.get(f"OTEL_EXPORTER_OTLP_{signal.value.upper()}_HEADERS", "")
                    ).items()
                }
            )
        if timeout is not None:
            seconds = float(timeout)
        else:
            try:
                seconds = float(_env(environ, signal, "TIMEOUT") or DEFAULT_TIMEOUT * 1000) / 1000
            except ValueError:
                seconds = DEFAULT_TIMEOUT
        compressed = (_env(environ, signal, "COMPRESSION") or "none").lower() == "gzip"
        if kind == GRPC:
            target, insecure = _grpc_endpoint(url, _env(environ, signal, "INSECURE"))
            chosen[signal] = Target(signal, GRPC, target, tuple(headers.items()), seconds, compressed, insecure)
        else:
            url = url if own else url.rstrip("/") + path
            chosen[signal] = Target(signal, HTTP, url, tuple(headers.items()), seconds, compressed)
    return chosen


@dataclass
class Batch:
    """Requests of one trial (or of the job), sent in order; `what` names them in log lines."""

    owner: str
    what: str
    requests: list[tuple[Signal, bytes]]


@dataclass
class Counts:
    sent: int = 0  # requests harborlight took
    failed: int = 0  # requests it refused, or did not answer before their deadline
    rejected: int = 0  # items of requests it took in part (OTLP partial_success)
    dropped_full: int = 0  # requests dropped because the queue was full
    dropped_end: int = 0  # requests still queued or in flight at the end's deadline


class Unanswered(Exception):
    """A request that got no acceptance: the one-line reason."""


def _brief(exc: BaseException) -> str:
    if isinstance(exc, grpc.aio.AioRpcError):
        return f"{exc.code().name}: {(exc.details() or '').splitlines()[0] if exc.details() else ''}".rstrip(": ")
    if isinstance(exc, (TimeoutError, asyncio.TimeoutError, httpx.TimeoutException)):
        return "no answer before the deadline"
    text = str(exc).splitlines()[0] if str(exc) else ""
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


class _Transport:
    """Requests to one target, on the sender's loop."""

    def __init__(self, target: Target) -> None:
        self.target = target
        self._spec = SIGNALS[target.signal]
        if target.protocol == GRPC:
            compression = grpc.Compression.Gzip if target.gzip else grpc.Compression.NoCompression
            if target.insecure:
                self._channel = grpc.aio.insecure_channel(target.endpoint, compression=compression)
            else:
                self._channel = grpc.aio.secure_channel(target.endpoint, _credentials(), compression=compression)
            # the request's bytes as they are: no serializer (grpcio sends bytes unchanged)
            self._export = self._channel.unary_unary(
                self._spec.grpc_method, request_serializer=None, response_deserializer=None
            )
            self._client = None
        else:
            headers = {**dict(target.headers), "content-type": "application/x-protobuf"}
            if target.gzip:
                headers["content-encoding"] = "gzip"
            self._client = httpx.AsyncClient(headers=headers, timeout=target.timeout)

    async def send(self, body: bytes) -> bytes:
        """The response's bytes; raises Unanswered with the reason."""
        target = self.target
        try:
            async with asyncio.timeout(target.timeout):
                if self._client is None:
                    return await self._export(body, timeout=target.timeout, metadata=target.headers)
                reply = await self._client.post(target.endpoint, content=gzip.compress(body) if target.gzip else body)
                if not 200 <= reply.status_code < 300:
                    said = reply.text.strip().splitlines()[0][:300] if reply.text.strip() else ""
                    raise Unanswered(f"HTTP {reply.status_code}: {said}".rstrip(": "))
                return reply.content
        except Unanswered:
            raise
        except (grpc.aio.AioRpcError, httpx.HTTPError, TimeoutError, OSError) as exc:
            raise Unanswered(_brief(exc)) from None

    def partial(self, content: bytes) -> tuple[int, str] | None:
        """(rejected items, message) of the response's partial_success, or None when it is no OTLP response."""
        try:
            partial = self._spec.response.FromString(content).partial_success
        except DecodeError:
            return None
        return getattr(partial, self._spec.rejected_field), partial.error_message

    async def close(self) -> None:
        if self._client is not None:
            await self._client.aclose()
        else:
            await self._channel.close(grace=None)


def _credentials() -> grpc.ChannelCredentials:
    path = os.environ.get("OTEL_EXPORTER_OTLP_CERTIFICATE")
    return grpc.ssl_channel_credentials(open(path, "rb").read() if path else None)


class Sender:
    """Sends batches off the caller's path. `submit` never waits; `close` waits at most `end_timeout`."""

    def __init__(
        self, targets: dict[Signal, Target], queue_size: int = DEFAULT_QUEUE_SIZE, workers: int = WORKERS
    ) -> None:
        self.targets = targets
        self.counts = Counts()
        self._queue_size = max(1, int(queue_size))
        self._workers = max(1, int(workers))
        self._pending = 0  # requests submitted and not yet done (queued or in flight)
        self._lock = threading.Lock()
        # made by start(): a sender never started (Harbor builds the plugin, the job does not start) holds no
        # event loop, whose sockets would stay open
        self._loop: asyncio.AbstractEventLoop
        self._ready = threading.Event()
        self._thread = threading.Thread(target=self._main, name="harborlight-plugin-sender", daemon=True)
        self._queues: list[asyncio.Queue] = []
        self._tasks: list[asyncio.Task] = []
        self._transports: dict[Signal, _Transport] = {}
        self._idle: asyncio.Event | None = None
        self._closed = False

    # -- on the caller's thread

    def start(self) -> None:
        self._loop = asyncio.new_event_loop()
        self._thread.start()
        self._ready.wait(30)

    def submit(self, batch: Batch) -> bool:
        """Queues the batch unless that would exceed the bound, or the sender is not running (then it is
        dropped and counted). Never waits, never raises."""
        if not batch.requests:
            return True
        with self._lock:
            if self._closed or not self._queues or self._pending + len(batch.requests) > self._queue_size:
                self.counts.dropped_full += len(batch.requests)
                log.debug("harborlight plugin: %s: %s dropped (queue full)", batch.owner, batch.what)
                return False
            self._pending += len(batch.requests)
        try:
            self._loop.call_soon_threadsafe(self._queues[hash(batch.owner) % self._workers].put_nowait, batch)
        except RuntimeError:  # the loop has stopped
            with self._lock:
                self._pending -= len(batch.requests)
                self.counts.dropped_end += len(batch.requests)
            return False
        return True

    async def probe(self, timeout: float = PROBE_TIMEOUT) -> list[tuple[Target, str]]:
        """Each distinct target asked with an empty request (valid OTLP, stores nothing): the ones that
        did not take it within `timeout`, with the reason."""
        future = asyncio.run_coroutine_threadsafe(self._probe(timeout), self._loop)
        return await asyncio.wrap_future(future)

    async def close(self, end_timeout: float) -> None:
        """Waits for what is queued at most `end_timeout` seconds, then drops the rest and stops."""
        with self._lock:
            self._closed = True
        if not self._thread.is_alive():
            return
        waited = asyncio.run_coroutine_threadsafe(self._wait_idle(), self._loop)
        try:
            await asyncio.wait_for(asyncio.wrap_future(waited), max(0.0, float(end_timeout)))
        except TimeoutError:
            waited.cancel()
        stopped = asyncio.run_coroutine_threadsafe(self._stop(), self._loop)
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(asyncio.wrap_future(stopped), 10)
        with self._lock:
            self.counts.dropped_end += self._pending
            self._pending = 0
        self._loop.call_soon_threadsafe(self._loop.stop)
        await asyncio.to_thread(self._thread.join, 10)

    # -- on the sender's thread

    def _main(self) -> None:
        asyncio.set_event_loop(self._loop)
        self._idle = asyncio.Event()
        self._idle.set()
        for _ in range(self._workers):
            queue: asyncio.Queue = asyncio.Queue()
            self._queues.append(queue)
            self._tasks.append(self._loop.create_task(self._work(queue)))
        try:
            self._transports = {signal: _Transport(target) for signal, target in self.targets.items()}
        except Exception as exc:  # a channel that cannot be made (bad TLS files): every request fails
            log.warning("harborlight plugin: cannot set up sending: %s", _brief(exc))
        self._ready.set()
        try:
            self._loop.run_forever()
        finally:
            self._loop.close()

    async def _probe(self, timeout: float) -> list[tuple[Target, str]]:
        """Every distinct target at once, each for at most `timeout` seconds."""
        distinct = {(t.protocol, t.endpoint): (signal, t) for signal, t in self.targets.items()}

        async def ask(signal: Signal, target: Target) -> str | None:
            transport = self._transports.get(signal)
            if transport is None:
                return "no transport"
            try:
                async with asyncio.timeout(timeout):
                    await transport.send(SIGNALS[signal].request().SerializeToString())
            except Unanswered as exc:
                return str(exc)
            except TimeoutError:
                return "no answer before the deadline"
            return None

        reasons = await asyncio.gather(*(ask(signal, target) for signal, target in distinct.values()))
        return [
            (target, reason)
            for (_, target), reason in zip(distinct.values(), reasons, strict=True)
            if reason is not None
        ]

    async def _wait_idle(self) -> None:
        while True:
            with self._lock:
                if self._pending == 0:
                    return
            self._idle.clear()
            with self._lock:
                if self._pending == 0:
                    return
            await self._idle.wait()

    def _done(self, n: int) -> None:
        with self._lock:
            self._pending -= n
            idle = self._pending == 0
        if idle:
            self._idle.set()

    async def _work(self, queue: asyncio.Queue) -> None:
        while True:
            batch = await queue.get()
            for signal, body in batch.requests:  # cancelled at the end's deadline: the rest stays pending
                try:
                    await self._send_one(batch, signal, body)
                except Exception as exc:  # never ends the worker
                    self.counts.failed += 1
                    log.warning("harborlight plugin: %s: %s not sent: %s", batch.owner, batch.what, _brief(exc))
                self._done(1)

    async def _send_one(self, batch: Batch, signal: Signal, body: bytes) -> None:
        transport = self._transports.get(signal)
        if transport is None:
            raise Unanswered("no transport")
        try:
            content = await transport.send(body)
        except Unanswered as exc:
            self.counts.failed += 1
            if self.counts.failed <= SHOWN_FAILURES:
                log.warning(
                    "harborlight plugin: %s: %s request not taken by %s: %s%s",
                    batch.owner,
                    batch.what,
                    transport.target.describe(),
                    exc,
                    "; further ones are counted, not shown (the job's end sums them up)"
                    if self.counts.failed == SHOWN_FAILURES
                    else "",
                )
            return
        self.counts.sent += 1
        partial = transport.partial(content)
        if partial is None:
            log.warning(
                "harborlight plugin: %s: %s answered %s with no OTLP response",
                batch.owner,
                transport.target.endpoint,
                signal.value,
            )
            return
        rejected, message = partial
        if rejected or message:
            self.counts.rejected += rejected
            spec = SIGNALS[signal]
            log.warning(
                "harborlight plugin: %s: %s rejected %d %s: %s",
                batch.owner,
                transport.target.endpoint,
                rejected,
                spec.rejected_field.removeprefix("rejected_").replace("_", " "),
                message,
            )

    async def _stop(self) -> None:
        for task in self._tasks:
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        for transport in self._transports.values():
            with contextlib.suppress(Exception):
                await transport.close()
