"""GET /api/live: trial started / phase / model call / tool call / trial finished, as server-sent events.

The ingest path pays one test per commit: the first watcher attaches a feed to the writer's `on_commit`
hook, which, only while someone is watching, queues the committed request bytes for the feed's own task.
That task reads from them just the trial names, session ids and trace ids (a protobuf parse, off the event
loop), asks agent_events for those trials' and traces' rows (the table's sort key and bloom index), and gives
each watcher the rows of its job and tenant that it has not seen yet. A watcher who asks for history is first
given the job's stored rows (harborlight/api/live/history.py), a batch of trials at a time, shown as they are
read; live rows that land meanwhile are shown as they come. A trial's end tells the outcome and reward of its
stored row (trial_rows, derived first if its events changed): what the API answers.

Bounded per watcher and per tenant (LiveLimits): a watcher's events wait as the bytes of their SSE frames,
at most `buffer_bytes` of them; a reader so slow (or stalled) that its stream falls further behind is
dropped, its backlog freed and a final `dropped` event, saying why, queued after what it was sent. A
tenant (everyone, without tenants) holds at most `streams_per_tenant` streams; one more is answered 429.
A stream counts until its response ends, so a stalled connection keeps its slot until its client goes.
The composition root gives `LiveLimits.of(settings)` to build_api (Services.live_limits); without it the feed
reads the settings from the HARBORLIGHT_LIVE_* variables and the defaults.
"""

import asyncio
import json
import logging
import os
import time
from collections import Counter, deque
from collections.abc import AsyncIterator, Callable, Iterable, Sequence
from contextlib import aclosing
from dataclasses import dataclass, field
from typing import Annotated, Any

from fastapi import APIRouter, Query
from fastapi.responses import JSONResponse, Response, StreamingResponse
from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import ExportLogsServiceRequest
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

from harborlight.api.deps import Services, Svc, Tenant, WriterDep
from harborlight.api.live.events import (
    COLUMNS,
    NO_VERDICTS,
    TRIAL_SPAN,
    LiveEvent,
    LiveRow,
    Verdicts,
    to_events,
)
from harborlight.api.live.history import read_history, read_rows
from harborlight.commit.writer import Writer
from harborlight.read.statements.stored_trials import verdicts
from harborlight.store import Store
from harborlight.summaries.refresh import refresh

log = logging.getLogger(__name__)

# Attributes whose values name a trial (the harness's, then the fallbacks agents stream without one).
_TRIAL_KEYS = ("harbor.trial.name", "session.id", "gen_ai.conversation.id", "conversation.id")
# The resolved rows (harborlight/read/statements/resolved_sql.py) of a commit's trials, sessions and traces, per
# writing tenant, once the keeper resolved the commit: a call told both by a span and by a log event is one row,
# and when the record that counts arrives after its twin was shown, the watcher knows the call by the twin's id.
_ROWS = f"""
SELECT {COLUMNS} FROM resolved_events FINAL
WHERE Tenant = {{tenant:String}} AND NOT OuterTelling
  AND (TrialKey IN {{trials:Array(String)}} OR SessionId IN {{trials:Array(String)}}
       OR TraceId IN {{traces:Array(String)}})
ORDER BY end_ts, EventId"""
# How long the feed waits for the keeper to resolve a commit before it reads what is there.
RESOLVE_WAIT_SECONDS = 30.0
KEEPALIVE_SECONDS = 15.0
# A history replays an event per call of the job: the stream writes what is queued at once (up to this many
# bytes), and the replay hands the event loop back between slices of rows, waiting while the watcher's
# queue is over half its limit.
_BYTES_PER_WRITE = 64 * 1024
_ROWS_PER_SLICE = 2_000
_HEADERS = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}


@dataclass(frozen=True)
class LiveLimits:
    """The settings live_buffer_kib and live_streams_per_tenant (harborlight/settings.py)."""

    buffer_bytes: int = 256 * 1024
    streams_per_tenant: int = 64

    @classmethod
    def of(cls, settings: Any) -> "LiveLimits":
        return cls(settings.live_buffer_kib * 1024, settings.live_streams_per_tenant)


def frame(event: LiveEvent) -> bytes:
    """One event as its server-sent-events frame."""
    return f"event: {event.type}\ndata: {json.dumps(event.as_json())}\n\n".encode()


@dataclass(eq=False)
class Watcher:
    job: str  # '' for every job
    tenant: str  # '' when tenants are off
    limit: int = LiveLimits.buffer_bytes  # most bytes of frames waiting for the reader
    frames: deque[bytes] = field(default_factory=deque)
    queued: int = 0  # bytes in `frames`
    ended: bool = False  # nothing more is offered: dropped, or the server is stopping
    ready: asyncio.Event = field(default_factory=asyncio.Event)  # frames wait, or the watcher ended
    room: asyncio.Event = field(default_factory=asyncio.Event)  # at most half the limit waits (a replay goes on)
    seen: set[str] = field(default_factory=set)
    started: set[str] = field(default_factory=set)

    def __post_init__(self) -> None:
        self.room.set()

    def offer(self, rows: Iterable[LiveRow], verdicts: Verdicts = NO_VERDICTS) -> None:
        for row in rows:
            if self.ended:
                return
            if row.event_id in self.seen or (self.tenant and row.tenant != self.tenant):
                continue
            if row.twin_id in self.seen:  # shown already, as told by the other signal
                self.seen.add(row.event_id)
                continue
            if self.job and row.job != self.job:
                continue
            self.seen.add(row.event_id)
            for event in to_events(row, self.started, verdicts):
                self._put(frame(event))

    def _put(self, data: bytes) -> None:
        if self.ended:
            return
        if self.queued + len(data) > self.limit:
            self.drop(self.queued + len(data))
            return
        self.frames.append(data)
        self.queued += len(data)
        self.ready.set()
        if self.queued > self.limit // 2:
            self.room.clear()

    def drop(self, behind: int) -> None:
        """Frees the backlog and ends the stream with a `dropped` event saying why."""
        self.frames.clear()
        self.seen, self.started = set(), set()
        reason = (
            f"this stream fell {behind:,} bytes behind its reader, over its {self.limit:,}-byte limit "
            "(--live-buffer-kib): read faster, or reconnect (history=true replays the job)"
        )
        self.frames.append(
            frame(
                LiveEvent(
                    "dropped",
                    self.job or None,
                    None,
                    time.time_ns(),
                    {"reason": reason, "behind_bytes": behind, "limit_bytes": self.limit},
                )
            )
        )
        self.queued = len(self.frames[0])
        self.end()

    def end(self) -> None:
        self.ended = True
        self.ready.set()
        self.room.set()

    def take(self) -> bytes:
        """The frames waiting, joined, up to _BYTES_PER_WRITE (at least one frame)."""
        taken, size = [], 0
        while self.frames and (not taken or size + len(self.frames[0]) <= _BYTES_PER_WRITE):
            data = self.frames.popleft()
            taken.append(data)
            size += len(data)
        self.queued -= size
        if not self.frames and not self.ended:
            self.ready.clear()
        if self.queued <= self.limit // 2:
            self.room.set()
        return b"".join(taken)


def committed_keys(items: Iterable[tuple[str, bytes]]) -> tuple[set[str], set[str]]:
    """The trial names (and session ids) and trace ids a batch of committed requests carries."""
    trials: set[str] = set()
    traces: set[str] = set()

    def names(attributes) -> None:
        for kv in attributes:
            if kv.key in _TRIAL_KEYS and kv.value.string_value:
                trials.add(kv.value.string_value)

    for signal, payload in items:
        if signal == "traces":
            request = ExportTraceServiceRequest.FromString(payload)
            for rs in request.resource_spans:
                names(rs.resource.attributes)
                for ss in rs.scope_spans:
                    for span in ss.spans:
                        traces.add(span.trace_id.hex())
        elif signal == "logs":
            request = ExportLogsServiceRequest.FromString(payload)
            for rl in request.resource_logs:
                names(rl.resource.attributes)
                for sl in rl.scope_logs:
                    for record in sl.log_records:
                        names(record.attributes)
                        if record.trace_id:
                            traces.add(record.trace_id.hex())
    return trials, traces


class LiveFeed:
    """Created inside the running event loop; `committed` is the writer's on_commit hook."""

    def __init__(
        self, store: Store, limits: LiveLimits = LiveLimits(), resolved: Callable[[float], bool] | None = None
    ) -> None:
        self._store = store
        # waits until the keeper resolved what was committed so far (None: refresh here, as the CLI does)
        self._resolved = resolved
        self.limits = limits
        self._inbox: asyncio.Queue[list[tuple[str, str, bytes]]] = asyncio.Queue()  # (tenant, signal, payload)
        self._watchers: set[Watcher] = set()
        self._open: Counter[str] = Counter()  # streams per tenant, until their responses end
        self._task: asyncio.Task | None = None
        self._closed = False

    def admit(self, tenant: str) -> bool:
        """Takes one of the tenant's stream slots; False when it holds them all."""
        if self._open[tenant] >= self.limits.streams_per_tenant:
            return False
        self._open[tenant] += 1
        return True

    def release(self, tenant: str) -> None:
        self._open[tenant] -= 1
        if self._open[tenant] <= 0:
            del self._open[tenant]

    @property
    def watchers(self) -> int:
        return len(self._watchers)

    def committed(self, batch: list[Any]) -> None:
        """The writer's on_commit hook (on the event loop); each item has `.tenant`, `.signal` and `.payload`."""
        if self._watchers:
            self._inbox.put_nowait([(p.tenant or "", str(p.signal), p.payload) for p in batch])

    def close(self) -> None:
        """Ends every open stream (the server is stopping: they would otherwise hold its shutdown)."""
        self._closed = True
        for watcher in self._watchers:
            watcher.end()
        if self._task is not None:
            self._task.cancel()

    async def watch(self, job: str, tenant: str, history: bool) -> AsyncIterator[bytes | None]:
        """The frames queued for one watcher, in order, a write at a time; None as a keep-alive tick.
        history: the job's stored events first (live events that land meanwhile may come between them)."""
        if self._closed:
            return
        watcher = Watcher(job, tenant, self.limits.buffer_bytes)
        self._watchers.add(watcher)
        if self._task is None or self._task.done():
            self._task = asyncio.create_task(self._run(), name="harborlight-live")
        replay = None
        if history and job:
            replay = asyncio.create_task(self._replay(watcher), name="harborlight-live-history")
        try:
            while True:
                if not watcher.frames:
                    if watcher.ended:
                        return
                    try:
                        await asyncio.wait_for(watcher.ready.wait(), KEEPALIVE_SECONDS)
                    except TimeoutError:
                        yield None
                    continue
                yield watcher.take()
        finally:
            if replay is not None:
                replay.cancel()
            self._watchers.discard(watcher)
            watcher.frames.clear()

    async def _replay(self, watcher: Watcher) -> None:
        """Offers the watcher its job's stored rows as the batches are read, while its reader keeps up; ends
        its stream if they cannot be read."""
        batches = read_history(self._store.client, watcher.job, watcher.tenant)
        try:
            while (rows := await asyncio.to_thread(next, batches, None)) is not None:
                for start in range(0, len(rows), _ROWS_PER_SLICE):
                    await watcher.room.wait()
                    if watcher.ended:
                        return
                    piece = rows[start : start + _ROWS_PER_SLICE]
                    watcher.offer(piece, await asyncio.to_thread(self._verdicts, watcher.tenant, piece))
                    await asyncio.sleep(0)
        except Exception as exc:
            log.warning("live feed history of job %r failed: %s", watcher.job, exc)
            watcher.end()

    async def _run(self) -> None:
        while True:
            items = await self._inbox.get()
            while not self._inbox.empty():  # commits that landed meanwhile share one look-up
                items.extend(self._inbox.get_nowait())
            # offered to the streams open when the look-up began: one opened during it (it waits for the keeper)
            # is not handed a backlog of what was committed before it (history= asks for that)
            watchers = list(self._watchers)
            if not watchers:
                continue
            for tenant in sorted({tenant for tenant, _, _ in items}):
                try:
                    trials, traces = await asyncio.to_thread(
                        committed_keys, [(signal, payload) for t, signal, payload in items if t == tenant]
                    )
                    keys = {"tenant": tenant, "trials": sorted(trials), "traces": sorted(traces)}
                    await asyncio.to_thread(self._resolve, tenant)
                    rows = await asyncio.to_thread(read_rows, self._store.client, _ROWS, keys)
                    told = await asyncio.to_thread(self._verdicts, tenant, rows)
                except Exception as exc:  # a watcher misses these events; ingest and other watchers go on
                    log.warning("live feed look-up failed: %s", exc)
                    continue
                for watcher in watchers:
                    watcher.offer(rows, told)
                    if watcher.ended:  # dropped: it is offered nothing more
                        self._watchers.discard(watcher)

    def _resolve(self, tenant: str) -> None:
        """Waits for the keeper to resolve what was committed (the rows and trial rows then read are of it)."""
        if self._resolved is None:
            refresh(self._store.client, tenant)
        elif not self._resolved(RESOLVE_WAIT_SECONDS):
            log.warning("live feed: the keeper has not resolved the last commits in %.0f s", RESOLVE_WAIT_SECONDS)

    def _verdicts(self, tenant: str, rows: Sequence[LiveRow]) -> Verdicts:
        """The stored rows' outcomes and rewards of the trials whose end is among `rows` (the same rows the API
        answers)."""
        ended = sorted({row.trial for row in rows if row.name == TRIAL_SPAN and row.trial})
        if not ended:
            return {}
        return verdicts(self._store.client, tenant, ended)


class LiveStream(Response):
    """The SSE response of one watcher: 429 past the tenant's streams; else the feed's frames until the
    watcher ends or the client goes (a task listens for the disconnect, so a stream blocked writing to a
    client that went, or idle between keep-alives, ends at once). The tenant's slot is held until then."""

    media_type = "text/event-stream"

    def __init__(self, feed: LiveFeed, job: str, tenant: str, history: bool) -> None:
        # Response's own __init__ would declare a content-length of 0.
        self.status_code, self.background, self.body = 200, None, b""
        self.raw_headers = [
            (b"content-type", b"text/event-stream; charset=utf-8"),
            *((k.lower().encode(), v.encode()) for k, v in _HEADERS.items()),
        ]
        self._feed, self._job, self._tenant, self._history = feed, job, tenant, history

    async def __call__(self, scope, receive, send) -> None:
        if not self._feed.admit(self._tenant):
            detail = (
                f"too many live streams open for this tenant (at most {self._feed.limits.streams_per_tenant}, "
                "--live-streams-per-tenant): close one, or watch several jobs on one stream (no job=)"
            )
            await JSONResponse({"detail": detail}, 429, headers={"Retry-After": "5"})(scope, receive, send)
            return
        try:
            pump = asyncio.ensure_future(self._pump(send))
            gone = asyncio.ensure_future(_disconnected(receive))
            try:
                await asyncio.wait({pump, gone}, return_when=asyncio.FIRST_COMPLETED)
            finally:
                for task in (pump, gone):
                    task.cancel()
                await asyncio.gather(pump, gone, return_exceptions=True)
        finally:
            self._feed.release(self._tenant)

    async def _pump(self, send) -> None:
        await send({"type": "http.response.start", "status": 200, "headers": self.raw_headers})
        await send({"type": "http.response.body", "body": b": harborlight live\n\n", "more_body": True})
        async with aclosing(self._feed.watch(self._job, self._tenant, self._history)) as frames:
            async for data in frames:  # closed at once when the client goes: the watcher leaves the feed
                await send(
                    {
                        "type": "http.response.body",
                        "body": b": keep-alive\n\n" if data is None else data,
                        "more_body": True,
                    }
                )
        await send({"type": "http.response.body", "body": b"", "more_body": False})


async def _disconnected(receive) -> None:
    while (await receive())["type"] != "http.disconnect":
        pass


def _limits() -> LiveLimits:
    """The process's settings when the composition root gave none (the HARBORLIGHT_LIVE_* variables)."""
    from harborlight.settings import Settings

    return LiveLimits.of(Settings.resolve({}, os.environ))


def _feed(services: Services, writer: Writer) -> LiveFeed:
    """The app's feed, attached to its writer by the first watcher."""
    if services.live is None:
        services.live = LiveFeed(services.store, services.live_limits or _limits(), services.resolved)
        writer.on_commit.append(services.live.committed)
    return services.live


def live_router() -> APIRouter:
    router = APIRouter(tags=["live"])

    @router.get(
        "/api/live",
        summary="Server-sent events of running trials: started, phase, model call, tool call, "
        "finished (and `dropped` when a stream falls too far behind)",
        response_class=StreamingResponse,
        responses={
            200: {"content": {"text/event-stream": {}}, "description": "server-sent events"},
            429: {"description": "the tenant holds its most live streams"},
        },
    )
    async def live(
        services: Svc,
        writer: WriterDep,
        tenant: Tenant,
        job: str = "",
        history: Annotated[bool, Query(description="first replay the job's stored events")] = False,
    ) -> Response:
        return LiveStream(_feed(services, writer), job, tenant, history)

    return router
