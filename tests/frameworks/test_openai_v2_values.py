"""The official OpenAI instrumentation's values, stored as the Collector's ClickHouse exporter stores them.

opentelemetry-instrumentation-openai-v2 runs for real (a process of its own) against a fake provider, in
its GenAI 1.30 mode (content as log events: gen_ai.choice bodies hold maps in maps) and in the latest
experimental mode (gen_ai.input.messages and gen_ai.output.messages: arrays of maps). An OTLP relay keeps
each request as sent; every span and log value must be stored as pdata's AsString() renders the sent value.
"""

import os
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import ExportLogsServiceRequest
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

from harborlight.store import Signal
from harborlight.transfer.otlp_files import read_chunks
from tests.frameworks.chat_provider import ANSWER, FILE_PATH, PROMPT, ChatProvider
from tests.real_agents.otlp_relay import OtlpRelay
from tests.support.reference_decoder import as_string

pytest.importorskip("opentelemetry.instrumentation.openai_v2", reason="opentelemetry-instrumentation-openai-v2")

ROOT = Path(__file__).resolve().parents[2]
MODES = {
    "GenAI 1.30 events": {"OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT": "true"},
    "latest experimental": {
        "OTEL_SEMCONV_STABILITY_OPT_IN": "gen_ai_latest_experimental",
        "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT": "SPAN_AND_EVENT",
    },
}


def _attributes(kvs) -> dict[str, str]:
    return {kv.key: as_string(kv.value) for kv in kvs}


def _run(server, service: str, mode: dict[str, str]) -> list:
    """The export requests the instrumentation sent, as (signal, request) pairs."""
    with ChatProvider() as provider, OtlpRelay(server.grpc_endpoint, server.http_url) as relay:
        env = {**os.environ, **mode, "PYTHONPATH": str(ROOT)}
        subprocess.run(
            [sys.executable, "-m", "tests.frameworks.openai_v2_run", provider.url, relay.http_endpoint, service],
            env=env,
            cwd=ROOT,
            check=True,
            timeout=300,
        )
        relay.wait_stored()
    assert relay.failures == []
    chunks = read_chunks("relay", "\n".join(relay.lines).encode())
    classes = {Signal.traces: ExportTraceServiceRequest, Signal.logs: ExportLogsServiceRequest}
    return [(c.signal, classes[c.signal].FromString(c.body)) for c in chunks if c.signal in classes]


@pytest.mark.parametrize("mode", MODES)
def test_every_value_the_instrumentation_sent_is_stored_as_the_exporter_writes_it(server, unique, mode):
    sent = _run(server, unique, MODES[mode])
    spans = {
        s.span_id.hex(): (
            _attributes(rs.resource.attributes),
            _attributes(s.attributes),
            [_attributes(e.attributes) for e in s.events],
        )
        for signal, request in sent
        if signal is Signal.traces
        for rs in request.resource_spans
        for ss in rs.scope_spans
        for s in ss.spans
    }
    logs = Counter(
        (r.event_name, as_string(r.body), tuple(sorted(_attributes(r.attributes).items())))
        for signal, request in sent
        if signal is Signal.logs
        for rl in request.resource_logs
        for sl in rl.scope_logs
        for r in sl.log_records
    )
    assert len(spans) == 2 and sum(logs.values()) >= 2

    stored_spans = {
        span_id: (resource, attributes, events)
        for span_id, resource, attributes, events in server.sql(
            "SELECT SpanId, ResourceAttributes, SpanAttributes, `Events.Attributes` FROM otel_traces "
            "WHERE ServiceName = {s:String}",
            s=unique,
        )
    }
    assert stored_spans == spans
    stored_logs = Counter(
        (name, body, tuple(sorted(attributes.items())))
        for name, body, attributes in server.sql(
            "SELECT EventName, Body, LogAttributes FROM otel_logs WHERE ServiceName = {s:String}", s=unique
        )
    )
    assert stored_logs == logs

    # the prompt, the tool's arguments and the answer are in the stored text, nothing of them null
    stored = repr(stored_spans) + repr(stored_logs)
    assert "null" not in stored.replace('"content":null', "")
    for text in (PROMPT, FILE_PATH, ANSWER.split(' "')[0]):  # the answer's HTML characters unescaped, as Go writes them
        assert text in stored, text
