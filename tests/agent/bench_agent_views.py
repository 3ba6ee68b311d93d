"""Ingest cost of the agent_events materialized views: the same 60k GenAI-style spans inserted
through harborlight.commit.otlp_insert.insert_requests with and without the views, in one run, rounds alternating.

    .venv/bin/python -m tests.agent.bench_agent_views [--spans 60000] [--rounds 3]
"""

import argparse
import os
import tempfile
import time
from pathlib import Path

from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

from harborlight.commit.otlp_insert import insert_requests
from harborlight.store import Signal, ensure_schema, open_client
from harborlight.store.schema import statement
from tests.support.otlp import T0, attrs

VIEWS = ("agent_events_traces_mv",)
SPANS_PER_REQUEST = 500
REQUESTS_PER_INSERT = 20  # 10k spans per INSERT, as the writer's group commit does


def genai_request(i: int) -> bytes:
    """500 chat spans with 8 GenAI-style attributes, under one root."""
    request = ExportTraceServiceRequest()
    rs = request.resource_spans.add()
    rs.resource.attributes.extend(attrs(**{"service.name": "bench-agent", "harbor.job.name": "bench"}))
    spans = rs.scope_spans.add().spans
    trace_id = os.urandom(16)
    for n in range(SPANS_PER_REQUEST):
        span = spans.add(
            trace_id=trace_id,
            span_id=os.urandom(8),
            parent_span_id=b"" if n == 0 else b"\x01" * 8,
            name="chat claude-sonnet-4",
            kind=3,
            start_time_unix_nano=T0 + n * 1000,
            end_time_unix_nano=T0 + n * 1000 + 900,
        )
        span.attributes.extend(
            attrs(
                **{
                    "gen_ai.operation.name": "chat",
                    "gen_ai.request.model": "claude-sonnet-4",
                    "gen_ai.provider.name": "anthropic",
                    "gen_ai.usage.input_tokens": 1000 + n,
                    "gen_ai.usage.output_tokens": 200,
                    "gen_ai.usage.cache_read.input_tokens": 800,
                    "gen_ai.response.finish_reasons": '["stop"]',
                    "gen_ai.conversation.id": f"conv-{i}",
                }
            )
        )
    return request.SerializeToString()


def timed_insert(store, requests: list[bytes]) -> float:
    start = time.perf_counter()
    for k in range(0, len(requests), REQUESTS_PER_INSERT):
        insert_requests(store, Signal.traces, requests[k : k + REQUESTS_PER_INSERT])
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--spans", type=int, default=60_000)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    store = open_client(Path(tempfile.mkdtemp(prefix="hl-bench-")))
    ensure_schema(store.client)
    requests = [genai_request(i) for i in range(args.spans // SPANS_PER_REQUEST)]
    spans = len(requests) * SPANS_PER_REQUEST
    timed_insert(store, requests[:REQUESTS_PER_INSERT])  # warm-up
    rates: dict[str, list[float]] = {"without views": [], "with views": []}
    for _ in range(args.rounds):
        for view in VIEWS:
            store.client.command(f"DROP VIEW IF EXISTS {view}")
        rates["without views"].append(spans / timed_insert(store, requests))
        for view in VIEWS:
            store.client.command(statement(view))
        rates["with views"].append(spans / timed_insert(store, requests))
    best = {k: max(v) for k, v in rates.items()}
    for name, values in rates.items():
        print(f"{name:>14}: best {best[name]:>9,.0f} spans/s  (rounds: {', '.join(f'{v:,.0f}' for v in values)})")
    print(f"with/without: {best['with views'] / best['without views']:.2f}")
    rows = store.client.query("SELECT count() FROM agent_events WHERE JobName = 'bench'").result_rows[0][0]
    print(f"agent_events rows written: {rows:,}")


if __name__ == "__main__":
    main()
