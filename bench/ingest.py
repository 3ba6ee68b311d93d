"""End-to-end durable ingest rate vs a direct insert of the same rows, measured in one run.

1. Starts `harborlight serve` (a subprocess, its own embedded store).
2. Sends N spans as pre-encoded OTLP protobuf requests (traces of 10 spans, GenAI-style attributes)
   from several concurrent gRPC clients; every request is acknowledged only once committed.
3. Waits until every span is queryable, and reports spans/s end to end, the time from the last
   acknowledgement to queryable, and the server's peak RSS.
4. Decodes the same requests into an Arrow table (not timed) and inserts it straight into a fresh
   chDB store with clickhouse-connect's insert_arrow, same schema, 50,000-row batches: spans/s and
   ratio; then again into the exporter's tables alone (no agent_events views), for what the agent
   layer costs; and once more in batches the size of the server's commits, for what the path costs
   apart from batching.
5. Repeats 2-4 (`--rounds`) and reports medians: on a shared machine a run's rate can swing by
   half, so each ratio compares runs made back to back.

Usage: python bench/ingest.py [--spans 200000] [--rounds 3] [--clients 16] [--in-flight 8] [--server-args '...']
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

import grpc
import httpx
import pyarrow as pa
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.proto.common.v1.common_pb2 import AnyValue, KeyValue

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from storage import Store, ensure_schema, open_client  # noqa: E402
from storage.agent_sources import CONTEXTS as AGENT_VIEWS  # noqa: E402
from tests.support.servers import SubprocessServer  # noqa: E402

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


def build_requests(n_spans: int, seed: int = 7) -> list[bytes]:
    rng = random.Random(seed)
    requests = []
    per_request = SPANS_PER_TRACE * TRACES_PER_REQUEST
    for r in range(n_spans // per_request):
        request = ExportTraceServiceRequest()
        rs = request.resource_spans.add()
        rs.resource.attributes.extend([
            _kv("service.name", "bench-agent"), _kv("harbor.job.name", "bench-job"),
            _kv("harbor.trial.name", f"trial-{r % 100}"), _kv("harbor.agent.name", "claude-code"),
        ])
        scope = rs.scope_spans.add()
        scope.scope.name = "bench"
        for t in range(TRACES_PER_REQUEST):
            trace_id, root = rng.randbytes(16), rng.randbytes(8)
            start = T0 + (r * TRACES_PER_REQUEST + t) * 1_000_000
            for i in range(SPANS_PER_TRACE):
                model = MODELS[i % 3]
                span = scope.spans.add(
                    trace_id=trace_id, span_id=root if i == 0 else rng.randbytes(8),
                    parent_span_id=b"" if i == 0 else root, kind=3,
                    name="invoke_agent" if i == 0 else (f"chat {model}" if i % 2 else f"execute_tool {TOOLS[i % 4]}"),
                    start_time_unix_nano=start + i * 1000, end_time_unix_nano=start + i * 1000 + rng.randint(1, 10**9),
                )
                span.attributes.extend([
                    _kv("gen_ai.operation.name", "chat" if i % 2 else "execute_tool"),
                    _kv("gen_ai.request.model", model), _kv("gen_ai.provider.name", "anthropic"),
                    _kv("gen_ai.usage.input_tokens", rng.randint(100, 50_000)),
                    _kv("gen_ai.usage.output_tokens", rng.randint(1, 4000)),
                    _kv("gen_ai.usage.cache_read.input_tokens", rng.randint(0, 40_000)),
                    _kv("gen_ai.tool.name", TOOLS[i % 4]), _kv("gen_ai.tool.call.id", f"toolu_{rng.randbytes(6).hex()}"),
                ])
        requests.append(request.SerializeToString())
    return requests


async def send_all(endpoint: str, requests: list[bytes], clients: int, in_flight: int) -> float:
    """Returns the monotonic time of the last acknowledgement."""
    queue: asyncio.Queue[bytes] = asyncio.Queue()
    for r in requests:
        queue.put_nowait(r)
    last_ack = 0.0

    async def client() -> None:
        nonlocal last_ack
        async with grpc.aio.insecure_channel(endpoint, options=[("grpc.max_send_message_length", 64 << 20)]) as ch:
            export = ch.unary_unary(METHOD)

            async def worker() -> None:
                nonlocal last_ack
                while not queue.empty():
                    body = queue.get_nowait()
                    while True:
                        try:
                            await export(body, timeout=120)
                            break
                        except grpc.aio.AioRpcError as exc:  # refused under load: back off and retry, as exporters do
                            if exc.code() not in (grpc.StatusCode.RESOURCE_EXHAUSTED, grpc.StatusCode.UNAVAILABLE):
                                raise
                            await asyncio.sleep(0.05)
                    last_ack = time.monotonic()

            await asyncio.gather(*(worker() for _ in range(in_flight)))

    await asyncio.gather(*(client() for _ in range(clients)))
    return last_ack


def ingest_report(http_url: str) -> dict:
    return httpx.get(f"{http_url}/api/ingest", params={"service": "bench-agent"}, timeout=60).json()


def stored_spans(http_url: str) -> int:
    return sum(row["items"] for row in ingest_report(http_url)["stored"] if row["signal"] == "traces")


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
    cols: dict[str, list] = {k: [] for k in (
        "Timestamp", "TraceId", "SpanId", "ParentSpanId", "TraceState", "SpanName", "SpanKind", "ServiceName",
        "ResourceAttributes", "ScopeName", "ScopeVersion", "SpanAttributes", "Duration", "StatusCode",
        "StatusMessage")}

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
                        ("Timestamp", s.start_time_unix_nano), ("TraceId", s.trace_id.hex()), ("SpanId", s.span_id.hex()),
                        ("ParentSpanId", s.parent_span_id.hex()), ("TraceState", s.trace_state), ("SpanName", s.name),
                        ("SpanKind", kinds[s.kind]), ("ServiceName", service), ("ResourceAttributes", resource),
                        ("ScopeName", ss.scope.name), ("ScopeVersion", ss.scope.version),
                        ("SpanAttributes", [(a.key, value(a.value)) for a in s.attributes]),
                        ("Duration", s.end_time_unix_nano - s.start_time_unix_nano), ("StatusCode", "Unset"),
                        ("StatusMessage", ""),
                    ):
                        cols[k].append(v)
    string_map = pa.map_(pa.string(), pa.string())
    types = {"Timestamp": pa.timestamp("ns"), "Duration": pa.uint64(), "ResourceAttributes": string_map,
             "SpanAttributes": string_map}
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
    with tempfile.TemporaryDirectory(ignore_cleanup_errors=True) as tmp:
        store = fresh_store(Path(tmp) / "direct", agent_views)
        n = sum(t.num_rows for t in tables)
        started = time.perf_counter()
        for table in tables:
            store.client.insert_arrow("otel_traces", table, settings={"async_insert": 0})
        elapsed = time.perf_counter() - started
        store.client.close()
        return n / elapsed


@dataclass
class Round:
    end_to_end: float  # spans/s
    direct: float
    lean: float
    direct_at_commit_size: float  # same tables and views, batches the size of the server's commits
    to_queryable_ms: float
    peak_rss_mib: float
    server_cores: float
    refused: int
    commits: int
    commit_spans: float


def end_to_end_round(requests: list[bytes], args: argparse.Namespace) -> dict:
    """Sends every request to a fresh server; returns the Round fields it measures."""
    n_spans = len(requests) * SPANS_PER_TRACE * TRACES_PER_REQUEST
    with tempfile.TemporaryDirectory() as tmp:
        server = SubprocessServer(Path(tmp) / "store", tuple(args.server_args.split())).start()
        try:
            started, cpu_before = time.monotonic(), cpu_seconds(server.process.pid)
            last_ack = asyncio.run(send_all(server.grpc_endpoint, requests, args.clients, args.in_flight))
            server_cpu = cpu_seconds(server.process.pid) - cpu_before
            while (stored := stored_spans(server.http_url)) < n_spans:
                time.sleep(0.01)
            queryable = time.monotonic()
            if stored != n_spans:
                raise SystemExit(f"stored {stored} spans, sent {n_spans}: not exactly once")
            report = ingest_report(server.http_url)
            writer = report["writer"]
            return {
                "end_to_end": n_spans / (last_ack - started),
                "to_queryable_ms": (queryable - last_ack) * 1000,
                "peak_rss_mib": peak_rss_mib(server.process.pid),
                "server_cores": server_cpu / (last_ack - started),
                "refused": sum(r["requests"] for r in report["since_start"]["refused_requests"]),
                "commits": writer["batches"],
                "commit_spans": writer["items"] / max(writer["batches"], 1),
            }
        finally:
            server.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--spans", type=int, default=200_000)
    parser.add_argument("--clients", type=int, default=16)
    parser.add_argument("--in-flight", type=int, default=8)
    parser.add_argument("--rounds", type=int, default=3,
                        help="end-to-end and direct runs alternate; medians are reported")
    parser.add_argument("--server-args", default="", help="extra `harborlight serve` flags, e.g. '--memory-limit-mib 4096'")
    args = parser.parse_args()

    requests = build_requests(args.spans)
    n_spans = len(requests) * SPANS_PER_TRACE * TRACES_PER_REQUEST
    all_rows = arrow_rows(requests)
    tables = batches(all_rows, DIRECT_BATCH_SPANS)
    rounds = []
    for r in range(args.rounds):
        measured = end_to_end_round(requests, args)
        size = max(1, round(measured["commit_spans"]))
        rounds.append(Round(**measured, direct=direct_insert_rate(tables),
                            lean=direct_insert_rate(tables, agent_views=False),
                            direct_at_commit_size=direct_insert_rate(batches(all_rows, size))))
        x = rounds[-1]
        print(f"round {r + 1}: end-to-end {x.end_to_end:,.0f}, direct {x.direct:,.0f} (ratio {x.end_to_end / x.direct:.2f}), "
              f"exporter tables only {x.lean:,.0f} (ratio {x.end_to_end / x.lean:.2f}) spans/s; "
              f"{x.commits} commits of {x.commit_spans:,.0f} spans", flush=True)

    print(f"spans sent:                      {n_spans} x {args.rounds} rounds ({len(requests)} requests, "
          f"{args.clients} clients x {args.in_flight} in flight)")
    print(f"server flags:                    {args.server_args or '(defaults)'}")
    print("stored:                          exactly once, every round")
    print(f"end-to-end durable ingest:       {median(x.end_to_end for x in rounds):,.0f} spans/s (median)")
    print(f"direct insert_arrow, same rows:  {median(x.direct for x in rounds):,.0f} spans/s "
          f"({DIRECT_BATCH_SPANS:,}-row batches, Arrow built beforehand, not timed)")
    print(f"ratio end-to-end / direct:       {median(x.end_to_end / x.direct for x in rounds):.2f} "
          f"(median of the rounds' ratios; {', '.join(f'{x.end_to_end / x.direct:.2f}' for x in rounds)})")
    print(f"direct, exporter tables only:    {median(x.lean for x in rounds):,.0f} spans/s (no agent views); "
          f"end-to-end / this: {median(x.end_to_end / x.lean for x in rounds):.2f}")
    print(f"direct, the server's commit size: {median(x.direct_at_commit_size for x in rounds):,.0f} spans/s "
          f"(same tables and views); end-to-end / this: "
          f"{median(x.end_to_end / x.direct_at_commit_size for x in rounds):.2f} (what the path costs, batching aside)")
    print(f"last ack -> all queryable:       {max(x.to_queryable_ms for x in rounds):.0f} ms (worst round)")
    print(f"server peak RSS:                 {max(x.peak_rss_mib for x in rounds):,.0f} MiB (worst round)")
    print(f"server CPU while ingesting:      {median(x.server_cores for x in rounds):.2f} cores (median)")
    print(f"refused (retried by the clients): {sum(x.refused for x in rounds) or 'none'}")
    print(f"writer:                          {median(x.commit_spans for x in rounds):,.0f} spans per commit (median)")


if __name__ == "__main__":
    main()
