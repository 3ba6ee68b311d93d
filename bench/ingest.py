"""End-to-end ingest rate, at 1, 4, 16 and many requests in flight, against a direct insert of the same rows,
in one run.

1. Starts `harborlight serve` (a subprocess, its own embedded store, its ClickHouse HTTP interface on).
2. For each run (clients x requests in flight each: 1x1, 4x1, 16x1, then 16x8 by default) sends its
   spans as pre-encoded OTLP protobuf requests (traces of 10 spans, GenAI-style attributes) over gRPC,
   timing each acknowledgement, and waits until every span is queryable as an agent event
   (`agent_events`, counted through the server's ClickHouse HTTP interface with clickhouse-connect).
   End to end = spans / (first request sent -> the last span an agent event). Then waits until the keeper
   has resolved every span (`resolved_events`: what every reader selects, harborlight/summaries/resolve.py),
   the keeper's work beside the commits: last acknowledgement -> every span resolved.
3. Decodes the same requests into an Arrow table (not timed) and inserts it straight into a fresh
   chDB store with clickhouse-connect's insert_arrow, 50,000-row batches: into the exporter's tables
   alone (the lean insert, no agent views), and with the same tables and views as the server.
4. Repeats 1-3 (`--rounds`) and reports medians: on a shared machine a run's rate can swing by
   half, so each ratio compares runs made back to back.

5. With `--variants views,after-commit`, each round runs every run on one fresh server per variant (the
   classification done another way: bench/classify_variants.py; `arrow` and `engine-once`, the classification
   out of the per-span views: bench/classify_arrow.py), against the same direct inserts.
   A full refresh (the agent views' SELECT over every stored span, as a refreshable view without a
   watermark would run it) is timed on the same-schema store after its direct insert.

Usage: python bench/ingest.py [--spans 400000] [--small-spans 60000] [--rounds 3] [--runs 1x1,4x1,16x1,16x8]
       [--server-args '...'] [--variants views,after-commit,arrow,engine-once]
       (`no-agent`: the server with no agent layer at all, its stored spans counted: the ceiling)
"""

import argparse
import asyncio
import os
import random
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from statistics import median

import clickhouse_connect
import grpc
import httpx
import pyarrow as pa
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.proto.common.v1.common_pb2 import AnyValue, KeyValue

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from harborlight.agent.sources import CONTEXTS as AGENT_VIEWS  # noqa: E402
from harborlight.store import Store, ensure_schema, open_client  # noqa: E402
from harborlight.store.schema_ddl import statement  # noqa: E402
from tests.support.servers import SubprocessServer, free_port  # noqa: E402

SPANS_PER_TRACE = 10
TRACES_PER_REQUEST = 50
METHOD = "/opentelemetry.proto.collector.trace.v1.TraceService/Export"
T0 = 1_764_547_200_000_000_000
MODELS = ["claude-sonnet-4", "gpt-5-codex", "gemini-2.5-pro"]
TOOLS = ["Bash", "Read", "Edit", "Grep"]
DIRECT_BATCH_SPANS = 50_000


def _kv(key: str, value) -> KeyValue:
    if isinstance(value, int):
        return KeyValue(key=key, value=AnyValue(int_value=value))
    return KeyValue(key=key, value=AnyValue(string_value=value))


def build_requests(n_spans: int, seed: int = 7, service: str = "bench-agent") -> list[bytes]:
    rng = random.Random(seed)
    requests = []
    per_request = SPANS_PER_TRACE * TRACES_PER_REQUEST
    for r in range(n_spans // per_request):
        request = ExportTraceServiceRequest()
        rs = request.resource_spans.add()
        rs.resource.attributes.extend(
            [
                _kv("service.name", service),
                _kv("harbor.job.name", "bench-job"),
                _kv("harbor.trial.name", f"trial-{r % 100}"),
                _kv("harbor.agent.name", "claude-code"),
            ]
        )
        scope = rs.scope_spans.add()
        scope.scope.name = "bench"
        for t in range(TRACES_PER_REQUEST):
            trace_id, root = rng.randbytes(16), rng.randbytes(8)
            start = T0 + (r * TRACES_PER_REQUEST + t) * 1_000_000
            for i in range(SPANS_PER_TRACE):
                model = MODELS[i % 3]
                span = scope.spans.add(
                    trace_id=trace_id,
                    span_id=root if i == 0 else rng.randbytes(8),
                    parent_span_id=b"" if i == 0 else root,
                    kind=3,
                    name="invoke_agent" if i == 0 else (f"chat {model}" if i % 2 else f"execute_tool {TOOLS[i % 4]}"),
                    start_time_unix_nano=start + i * 1000,
                    end_time_unix_nano=start + i * 1000 + rng.randint(1, 10**9),
                )
                span.attributes.extend(
                    [
                        _kv("gen_ai.operation.name", "chat" if i % 2 else "execute_tool"),
                        _kv("gen_ai.request.model", model),
                        _kv("gen_ai.provider.name", "anthropic"),
                        _kv("gen_ai.usage.input_tokens", rng.randint(100, 50_000)),
                        _kv("gen_ai.usage.output_tokens", rng.randint(1, 4000)),
                        _kv("gen_ai.usage.cache_read.input_tokens", rng.randint(0, 40_000)),
                        _kv("gen_ai.tool.name", TOOLS[i % 4]),
                        _kv("gen_ai.tool.call.id", f"toolu_{rng.randbytes(6).hex()}"),
                    ]
                )
        requests.append(request.SerializeToString())
    return requests


@dataclass
class Sent:
    last_ack: float  # monotonic
    ack_seconds: list[float]  # each request: sent -> acknowledged (its successful attempt)


async def send_all(endpoint: str, requests: list[bytes], clients: int, in_flight: int) -> Sent:
    queue: asyncio.Queue[bytes] = asyncio.Queue()
    for r in requests:
        queue.put_nowait(r)
    sent = Sent(0.0, [])

    async def client() -> None:
        async with grpc.aio.insecure_channel(endpoint, options=[("grpc.max_send_message_length", 64 << 20)]) as ch:
            export = ch.unary_unary(METHOD)

            async def worker() -> None:
                while not queue.empty():
                    body = queue.get_nowait()
                    while True:
                        started = time.monotonic()
                        try:
                            await export(body, timeout=120)
                            break
                        except grpc.aio.AioRpcError as exc:  # refused under load: back off and retry, as exporters do
                            if exc.code() not in (grpc.StatusCode.RESOURCE_EXHAUSTED, grpc.StatusCode.UNAVAILABLE):
                                raise
                            await asyncio.sleep(0.05)
                    sent.last_ack = time.monotonic()
                    sent.ack_seconds.append(sent.last_ack - started)

            await asyncio.gather(*(worker() for _ in range(in_flight)))

    await asyncio.gather(*(client() for _ in range(clients)))
    return sent


def ingest_report(http_url: str) -> dict:
    return httpx.get(f"{http_url}/api/ingest", params={"service": "bench-agent"}, timeout=60).json()


def stored_spans(http_url: str, service: str) -> int:
    report = httpx.get(f"{http_url}/api/ingest", params={"service": service}, timeout=60).json()
    return sum(row["items"] for row in report["stored"] if row["signal"] == "traces")


class AgentEvents:
    """Counts a service's spans that are agent events, through the server's ClickHouse HTTP interface; for a
    server with no agent layer (`raw`), its stored spans."""

    def __init__(self, port: int, raw: bool = False) -> None:
        self._client = clickhouse_connect.get_client(host="127.0.0.1", port=port)
        self._raw = raw

    def count(self, service: str) -> int:
        return self._client.query(
            "SELECT count() FROM otel_traces WHERE ServiceName = {s:String}"
            if self._raw
            else "SELECT count() FROM agent_events WHERE ServiceName = {s:String} AND SourceTable = 'otel_traces'",
            parameters={"s": service},
        ).result_rows[0][0]

    def resolved(self, service: str) -> int:
        """The service's spans in the rows the readers select (the keeper's resolution of the commits)."""
        if self._raw:
            return self.count(service)
        return self._client.query(
            "SELECT count() FROM resolved_events FINAL WHERE ServiceName = {s:String} AND SourceTable = 'otel_traces'",
            parameters={"s": service},
        ).result_rows[0][0]

    def close(self) -> None:
        self._client.close()


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of a process so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def peak_rss_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def arrow_rows(requests: list[bytes]) -> pa.Table:
    """The same rows as the exporter would write them, built in Python (not timed)."""
    kinds = ["Unspecified", "Internal", "Server", "Client", "Producer", "Consumer"]
    cols: dict[str, list] = {
        k: []
        for k in (
            "Timestamp",
            "TraceId",
            "SpanId",
            "ParentSpanId",
            "TraceState",
            "SpanName",
            "SpanKind",
            "ServiceName",
            "ResourceAttributes",
            "ScopeName",
            "ScopeVersion",
            "SpanAttributes",
            "Duration",
            "StatusCode",
            "StatusMessage",
        )
    }

    def value(v: AnyValue) -> str:
        return v.string_value if v.WhichOneof("value") == "string_value" else str(v.int_value)

    for body in requests:
        request = ExportTraceServiceRequest.FromString(body)
        for rs in request.resource_spans:
            resource = [(a.key, value(a.value)) for a in rs.resource.attributes]
            service = dict(resource).get("service.name", "")
            for ss in rs.scope_spans:
                for s in ss.spans:
                    for k, v in (
                        ("Timestamp", s.start_time_unix_nano),
                        ("TraceId", s.trace_id.hex()),
                        ("SpanId", s.span_id.hex()),
                        ("ParentSpanId", s.parent_span_id.hex()),
                        ("TraceState", s.trace_state),
                        ("SpanName", s.name),
                        ("SpanKind", kinds[s.kind]),
                        ("ServiceName", service),
                        ("ResourceAttributes", resource),
                        ("ScopeName", ss.scope.name),
                        ("ScopeVersion", ss.scope.version),
                        ("SpanAttributes", [(a.key, value(a.value)) for a in s.attributes]),
                        ("Duration", s.end_time_unix_nano - s.start_time_unix_nano),
                        ("StatusCode", "Unset"),
                        ("StatusMessage", ""),
                    ):
                        cols[k].append(v)
    string_map = pa.map_(pa.string(), pa.string())
    types = {
        "Timestamp": pa.timestamp("ns"),
        "Duration": pa.uint64(),
        "ResourceAttributes": string_map,
        "SpanAttributes": string_map,
    }
    return pa.table({k: pa.array(v, type=types.get(k, pa.string())) for k, v in cols.items()})


def batches(rows: pa.Table, size: int) -> list[pa.Table]:
    """`rows` in slices of `size` (zero-copy)."""
    return [rows.slice(i, size) for i in range(0, rows.num_rows, size)]


def fresh_store(path: Path, agent_views: bool = True) -> Store:
    """A new store at `path`; without the agent views, the exporter's tables alone (what the agent
    layer costs shows in the ratio)."""
    store = open_client(path)
    ensure_schema(store.client)
    if not agent_views:
        for view in AGENT_VIEWS:
            store.client.command(f"DROP VIEW IF EXISTS {view.mv}")
    return store


def direct_insert_rate(tables: list[pa.Table], agent_views: bool = True) -> float:
    """Spans/s of the direct insert."""
    return direct_insert(tables, agent_views, refresh=False)[0]


def direct_insert(tables: list[pa.Table], agent_views: bool, refresh: bool) -> tuple[float, float]:
    """Spans/s of the direct insert and, with `refresh`, the seconds of a full refresh of the traces view
    over the spans it stored, run after it (not in the rate; 0.0 without)."""
    with tempfile.TemporaryDirectory(ignore_cleanup_errors=True) as tmp:
        store = fresh_store(Path(tmp) / "direct", agent_views)
        n = sum(t.num_rows for t in tables)
        started = time.perf_counter()
        for table in tables:
            store.client.insert_arrow("otel_traces", table, settings={"async_insert": 0})
        elapsed = time.perf_counter() - started
        refresh_seconds = full_refresh_seconds(store) if refresh else 0.0
        store.client.close()
        return n / elapsed, refresh_seconds


def full_refresh_seconds(store: Store) -> float:
    """The traces view's SELECT over every stored span, into agent_events: what a refreshable view without
    a watermark runs on every refresh."""
    select = statement("agent_events_traces_mv").split(" TO agent_events AS", 1)[1]
    columns = ", ".join(row[0] for row in store.client.query(f"DESCRIBE ({select})").result_rows)
    started = time.perf_counter()
    store.client.command(f"INSERT INTO agent_events ({columns}) {select}", settings={"insert_deduplicate": 0})
    return time.perf_counter() - started


@dataclass(frozen=True)
class Run:
    clients: int
    in_flight: int  # requests in flight per client

    @classmethod
    def parse(cls, text: str) -> "Run":
        clients, in_flight = text.split("x")
        return cls(int(clients), int(in_flight))

    def __str__(self) -> str:
        return f"{self.clients}x{self.in_flight}"

    @property
    def service(self) -> str:
        return f"bench-{self}"


@dataclass
class Measured:
    """One run in one round."""

    spans: int
    end_to_end: float  # spans/s until every span is an agent event
    ack_p50_ms: float
    ack_p99_ms: float
    to_agent_events_ms: float  # last acknowledgement -> every span an agent event
    to_resolved_ms: float  # last acknowledgement -> every span resolved by the keeper
    commits: int
    server_cores: float  # the server's CPU time over the run's wall time
    peak_rss_mib: float  # the server's, so far
    lean: float = 0.0  # direct insert of the same rows, exporter tables only
    direct: float = 0.0  # direct insert, the server's tables and views
    full_refresh_s: float = 0.0  # the traces view's SELECT over the direct store's spans, into agent_events


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def measure_run(server: SubprocessServer, events: AgentEvents, run: Run, requests: list[bytes]) -> Measured:
    n_spans = len(requests) * SPANS_PER_TRACE * TRACES_PER_REQUEST
    commits_before = ingest_report(server.http_url)["writer"]["batches"]
    started, cpu_before = time.monotonic(), cpu_seconds(server.process.pid)
    sent = asyncio.run(send_all(server.grpc_endpoint, requests, run.clients, run.in_flight))
    while (seen := events.count(run.service)) < n_spans:
        time.sleep(0.005)
    done, cpu = time.monotonic(), cpu_seconds(server.process.pid) - cpu_before
    if seen != n_spans or stored_spans(server.http_url, run.service) != n_spans:
        raise SystemExit(f"{run}: {seen} agent events for {n_spans} spans sent: not exactly once")
    while (resolved := events.resolved(run.service)) < n_spans:
        time.sleep(0.05)
    if resolved != n_spans:
        raise SystemExit(f"{run}: {resolved} resolved events for {n_spans} spans sent")
    resolved_at = time.monotonic()
    return Measured(
        n_spans,
        n_spans / (done - started),
        percentile(sent.ack_seconds, 0.5) * 1000,
        percentile(sent.ack_seconds, 0.99) * 1000,
        (done - sent.last_ack) * 1000,
        (resolved_at - sent.last_ack) * 1000,
        ingest_report(server.http_url)["writer"]["batches"] - commits_before,
        cpu / (done - started),
        peak_rss_mib(server.process.pid),
    )


# Variants that classify outside the views (issue 36) start from bench/classify_arrow.py.
_VARIANT_PROGRAMS = {
    "arrow": "classify_arrow.py",
    "arrow-split": "classify_arrow.py",
    "engine-once": "classify_arrow.py",
}


def round_on_one_server(runs: dict[Run, list[bytes]], args: argparse.Namespace, variant: str) -> dict[Run, Measured]:
    """Every run, one after the other, on one fresh server."""
    with tempfile.TemporaryDirectory() as tmp:
        sql_port = free_port()
        extra = ("--clickhouse-http-port", str(sql_port), *args.server_args.split())
        server = SubprocessServer(
            Path(tmp) / "store",
            extra,
            program=(
                ("-m", "harborlight.cli.main")
                if variant == "views"
                else (str(Path(__file__).with_name(_VARIANT_PROGRAMS.get(variant, "classify_variants.py"))), variant)
            ),
        ).start()
        events = AgentEvents(sql_port, raw=variant == "no-agent")
        try:
            return {run: measure_run(server, events, run, requests) for run, requests in runs.items()}
        finally:
            events.close()
            server.stop(timeout=600)  # a clean stop commits what its log still holds
            if errors := [line for line in server.output.splitlines() if " ERROR " in line]:
                print(f"{variant}: the server logged {len(errors)} errors, the first: {errors[0]}", file=sys.stderr)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--spans", type=int, default=400_000, help="spans of the runs with many requests in flight")
    parser.add_argument("--small-spans", type=int, default=60_000, help="spans of the runs with one in flight")
    parser.add_argument("--runs", default="1x1,4x1,16x1,16x8", help="clients x requests in flight each")
    parser.add_argument("--rounds", type=int, default=3, help="server and direct runs alternate; medians are reported")
    parser.add_argument("--server-args", default="", help="extra `harborlight serve` flags, e.g. '--wal-fsync always'")
    parser.add_argument(
        "--variants",
        default="views",
        help="how the server classifies: views, after-commit (bench/classify_variants.py), arrow, engine-once "
        "(bench/classify_arrow.py)",
    )
    args = parser.parse_args()

    runs = [Run.parse(r) for r in args.runs.split(",")]
    variants = args.variants.split(",")
    requests = {
        run: build_requests(args.small_spans if run.in_flight == 1 else args.spans, seed=i + 7, service=run.service)
        for i, run in enumerate(runs)
    }
    tables = {run: batches(arrow_rows(r), DIRECT_BATCH_SPANS) for run, r in requests.items()}
    rounds: list[dict[tuple[str, Run], Measured]] = []
    for r in range(args.rounds):
        measured = {
            (variant, run): m for variant in variants for run, m in round_on_one_server(requests, args, variant).items()
        }
        for run in runs:
            lean = direct_insert_rate(tables[run], agent_views=False)
            direct, refresh = direct_insert(tables[run], agent_views=True, refresh=True)
            for variant in variants:
                m = measured[variant, run]
                m.lean, m.direct, m.full_refresh_s = lean, direct, refresh
                print(
                    f"round {r + 1} {variant} {run}: end-to-end {m.end_to_end:,.0f} spans/s, lean insert "
                    f"{m.lean:,.0f} (ratio {m.end_to_end / m.lean:.2f}), same-schema insert {m.direct:,.0f} "
                    f"(ratio {m.end_to_end / m.direct:.2f}); ack p50 {m.ack_p50_ms:.1f} ms; "
                    f"last ack -> agent events {m.to_agent_events_ms:.0f} ms, resolved {m.to_resolved_ms:.0f} ms; "
                    f"{m.commits} commits; "
                    f"server {m.server_cores:.2f} cores, peak RSS {m.peak_rss_mib:,.0f} MiB; "
                    f"full refresh of {m.spans:,} spans {refresh:.2f} s",
                    flush=True,
                )
        rounds.append(measured)

    print(
        f"\n{args.rounds} rounds, medians (each ratio: the median of the rounds' ratios); server flags: "
        f"{args.server_args or '(defaults)'}; every span stored exactly once, every round; load average "
        f"{' '.join(f'{x:.1f}' for x in os.getloadavg())}"
    )
    print(
        "| classification | clients x in flight | spans | end to end, spans/s | of the lean insert "
        "| of the same-schema insert | p50 / p99 ack | last ack -> agent events (worst) "
        "| last ack -> resolved (worst) | commits |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|")
    for variant in variants:
        for run in runs:
            ms = [rnd[variant, run] for rnd in rounds]
            print(
                f"| {variant} | {run} | {ms[0].spans:,} | {median(m.end_to_end for m in ms):,.0f} "
                f"| {median(m.end_to_end / m.lean for m in ms):.2f} "
                f"({', '.join(f'{m.end_to_end / m.lean:.2f}' for m in ms)}) "
                f"| {median(m.end_to_end / m.direct for m in ms):.2f} "
                f"| {median(m.ack_p50_ms for m in ms):.1f} / {median(m.ack_p99_ms for m in ms):.0f} ms "
                f"| {max(m.to_agent_events_ms for m in ms):.0f} ms | {max(m.to_resolved_ms for m in ms):.0f} ms "
                f"| {median(m.commits for m in ms):.0f} |"
            )
    every = [m for rnd in rounds for m in rnd.values()]
    print(
        f"direct inserts (insert_arrow, {DIRECT_BATCH_SPANS:,}-row batches, Arrow built beforehand): lean "
        f"{min(m.lean for m in every):,.0f}-{max(m.lean for m in every):,.0f} spans/s, same tables and views "
        f"{min(m.direct for m in every):,.0f}-{max(m.direct for m in every):,.0f}"
    )
    for m in sorted({(m.spans, m.full_refresh_s) for m in every}):
        print(f"a full refresh (the traces view's SELECT over {m[0]:,} stored spans, into agent_events): {m[1]:.2f} s")
    for variant in variants:
        peak = max(rnd[variant, run].peak_rss_mib for rnd in rounds for run in runs)
        print(f"{variant}: server peak RSS {peak:,.0f} MiB")


if __name__ == "__main__":
    main()
