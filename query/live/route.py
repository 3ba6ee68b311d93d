"""GET /api/live: trial started / phase / model call / tool call / trial finished, as server-sent events.

The ingest path pays one test per commit: the first watcher attaches a feed to the writer's `on_commit`
hook, which, only while someone is watching, queues the committed request bytes for the feed's own task. That task reads from them just the trial names, session ids and trace ids (a protobuf
parse, off the event loop), asks agent_events for those trials' and traces' rows (the table's sort key and
bloom index), and gives each watcher the rows of its job and tenant that it has not seen yet. A watcher who
asks for history is first given the job's stored rows (query/live/history.py), a batch of trials at a time,
shown as they are read; live rows that land meanwhile are shown as they come. A trial's end tells the
outcome and reward of its stored row (trial_rows, derived first if its events changed): what the API answers.
"""

import asyncio
import json
import logging
from collections.abc import AsyncIterator, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Annotated, Any

from fastapi import APIRouter, Query, Request
from fastapi.responses import StreamingResponse
from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import ExportLogsServiceRequest
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

from query.live.events import COLUMNS, TRIAL_SPAN, LiveEvent, LiveRow, Verdicts, to_events
from query.live.history import read_history, read_rows
from query.statements.stored_trials import verdicts
from query.statements.tenancy import tenant_of
from query.summaries.refresh import refresh
from storage import Store, agent_twins

log = logging.getLogger(__name__)

# Attributes whose values name a trial (the harness's, then the fallbacks agents stream without one).
_TRIAL_KEYS = ("harbor.trial.name", "session.id", "gen_ai.conversation.id", "conversation.id")
# A call told both by a span and by a log event once (storage/agent_twins.py): when the record that
# counts arrives after its twin was shown, the watcher knows the call by the twin's id.
# Looked up per writing tenant: twins are paired within the rows a look-up selects, and one tenant's
# span must never pair with another's event, whatever job, trial or request id it claims.
_COMMITTED = "Tenant = {tenant:String} AND (TrialName IN {trials:Array(String)} OR TraceId IN {traces:Array(String)})"
# (the form the rows are read in, then the rows in each form: agent_twins.FORMS)
_ROWS = (agent_twins.form(_COMMITTED, scope=_COMMITTED), *(
    f"SELECT {COLUMNS} FROM ({agent_twins.events(_COMMITTED, form, twin_ids=True, scope=_COMMITTED)}) "
    "ORDER BY end_ts, EventId"
    for form in agent_twins.FORMS))
KEEPALIVE_SECONDS = 15.0
# A history replays an event per call of the job: the stream writes what is queued at once (up to
# this many events), and the replay hands the event loop back between slices of rows.
_EVENTS_PER_WRITE = 1_000
_ROWS_PER_SLICE = 2_000
# A watcher who reads slower than the history is read holds at most about this many events queued.
_HISTORY_BACKLOG = 50_000
_CLOSED = object()  # put in a watcher's queue when the server stops (or its history cannot be read): its stream ends


@dataclass(eq=False)
class Watcher:
    job: str  # '' for every job
    tenant: str  # '' when tenants are off
    queue: asyncio.Queue = field(default_factory=asyncio.Queue)
    seen: set[str] = field(default_factory=set)
    started: set[str] = field(default_factory=set)

    def offer(self, rows: Iterable[LiveRow], verdicts: Verdicts = {}) -> None:
        for row in rows:
            if row.event_id in self.seen or (self.tenant and row.tenant != self.tenant):
                continue
            if row.twin_id in self.seen:  # shown already, as told by the other signal
                self.seen.add(row.event_id)
                continue
            if self.job and row.job != self.job:
                continue
            self.seen.add(row.event_id)
            for event in to_events(row, self.started, verdicts):
                self.queue.put_nowait(event)


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

    def __init__(self, store: Store) -> None:
        self._store = store
        self._inbox: asyncio.Queue[list[tuple[str, str, bytes]]] = asyncio.Queue()  # (tenant, signal, payload)
        self._watchers: set[Watcher] = set()
        self._task: asyncio.Task | None = None
        self._closed = False

    def committed(self, batch: list[Any]) -> None:
        """The writer's on_commit hook (on the event loop); each item has `.tenant`, `.signal` and `.payload`."""
        if self._watchers:
            self._inbox.put_nowait([(p.tenant or "", str(p.signal), p.payload) for p in batch])

    def close(self) -> None:
        """Ends every open stream (the server is stopping: they would otherwise hold its shutdown)."""
        self._closed = True
        for watcher in self._watchers:
            watcher.queue.put_nowait(_CLOSED)
        if self._task is not None:
            self._task.cancel()

    async def watch(self, job: str, tenant: str, history: bool) -> AsyncIterator[list[LiveEvent] | None]:
        """The events queued for one watcher, in order, a list at a time; None as a keep-alive tick.
        history: the job's stored events first (live events that land meanwhile may come between them)."""
        if self._closed:
            return
        watcher = Watcher(job, tenant)
        self._watchers.add(watcher)
        if self._task is None or self._task.done():
            self._task = asyncio.create_task(self._run(), name="harborlight-live")
        replay = None
        if history and job:
            replay = asyncio.create_task(self._replay(watcher), name="harborlight-live-history")
        try:
            while True:
                try:
                    events = [await asyncio.wait_for(watcher.queue.get(), KEEPALIVE_SECONDS)]
                except TimeoutError:
                    yield None
                    continue
                while len(events) < _EVENTS_PER_WRITE and not watcher.queue.empty():
                    events.append(watcher.queue.get_nowait())
                if _CLOSED in events:
                    if shown := events[:events.index(_CLOSED)]:
                        yield shown
                    return
                yield events
        finally:
            if replay is not None:
                replay.cancel()
            self._watchers.discard(watcher)

    async def _replay(self, watcher: Watcher) -> None:
        """Offers the watcher its job's stored rows as the batches are read; ends its stream if they cannot be."""
        batches = read_history(self._store.client, watcher.job, watcher.tenant)
        try:
            while (rows := await asyncio.to_thread(next, batches, None)) is not None:
                for start in range(0, len(rows), _ROWS_PER_SLICE):
                    while watcher.queue.qsize() > _HISTORY_BACKLOG:
                        await asyncio.sleep(0.02)
                    piece = rows[start:start + _ROWS_PER_SLICE]
                    watcher.offer(piece, await asyncio.to_thread(self._verdicts, watcher.tenant, piece))
                    await asyncio.sleep(0)
        except Exception as exc:
            log.warning("live feed history of job %r failed: %s", watcher.job, exc)
            watcher.queue.put_nowait(_CLOSED)

    async def _run(self) -> None:
        while True:
            items = await self._inbox.get()
            while not self._inbox.empty():  # commits that landed meanwhile share one look-up
                items.extend(self._inbox.get_nowait())
            if not self._watchers:
                continue
            for tenant in sorted({tenant for tenant, _, _ in items}):
                try:
                    trials, traces = await asyncio.to_thread(
                        committed_keys, [(signal, payload) for t, signal, payload in items if t == tenant])
                    keys = {"tenant": tenant, "trials": sorted(trials), "traces": sorted(traces)}
                    rows = await asyncio.to_thread(read_rows, self._store.client, _ROWS, keys)
                    told = await asyncio.to_thread(self._verdicts, tenant, rows)
                except Exception as exc:  # a watcher misses these events; ingest and other watchers go on
                    log.warning("live feed look-up failed: %s", exc)
                    continue
                for watcher in list(self._watchers):
                    watcher.offer(rows, told)

    def _verdicts(self, tenant: str, rows: Sequence[LiveRow]) -> Verdicts:
        """The stored rows' outcomes and rewards of the trials whose end is among `rows`, derived first if
        their events changed (the same rows the API answers)."""
        ended = sorted({row.trial for row in rows if row.name == TRIAL_SPAN and row.trial})
        if not ended:
            return {}
        refresh(self._store.client, tenant)
        return verdicts(self._store.client, tenant, ended)



def _feed(request: Request) -> LiveFeed:
    """The app's feed, attached to its writer by the first watcher."""
    state = request.app.state
    if getattr(state, "live", None) is None:
        state.live = LiveFeed(state.store)
        state.writer.on_commit.append(state.live.committed)
    return state.live


def live_router() -> APIRouter:
    router = APIRouter(tags=["live"])

    @router.get("/api/live", summary="Server-sent events of running trials: started, phase, model call, tool call, "
                "finished", response_class=StreamingResponse)
    async def live(
        request: Request,
        job: str = "",
        history: Annotated[bool, Query(description="first replay the job's stored events")] = False,
    ) -> StreamingResponse:
        feed = _feed(request)
        tenant = tenant_of(request)

        async def stream() -> AsyncIterator[bytes]:
            yield b": harborlight live\n\n"
            async for events in feed.watch(job, tenant, history):
                if await request.is_disconnected():
                    return
                if events is None:
                    yield b": keep-alive\n\n"
                else:
                    yield "".join(f"event: {e.type}\ndata: {json.dumps(e.as_json())}\n\n" for e in events).encode()

        return StreamingResponse(stream(), media_type="text/event-stream",
                                 headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"})

    return router
