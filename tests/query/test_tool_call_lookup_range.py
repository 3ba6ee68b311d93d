"""One trial's tool-call argument look-up (harborlight/read/statements/behavior_sql.py TOOL_CALLS) reads the raw
tables by their primary key: the trial's services, span names and time range, not a bloom-filter check of
every granule of otel_traces (which grew with the store: issue 18). Read from a store the receiver's own
write path filled (the session's store: chDB opens one data directory per process)."""

import json
import time
import uuid

from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.proto.common.v1.common_pb2 import AnyValue, KeyValue

from harborlight.commit.otlp_insert import insert_requests
from harborlight.read.statements import behavior_sql
from harborlight.store import Signal, ensure_schema, open_client
from harborlight.summaries.resolve import resolve_trials

T0 = 1_764_547_200_000_000_000
S = 1_000_000_000


def _kv(values: dict) -> list[KeyValue]:
    return [KeyValue(key=k, value=AnyValue(string_value=v)) for k, v in values.items()]


def _trial_request(trial: str, start: int) -> bytes:
    trace_id = uuid.uuid4().bytes
    req = ExportTraceServiceRequest()
    rs = req.resource_spans.add()
    rs.resource.attributes.extend(
        _kv({"service.name": "claude-code", "harbor.job.name": f"job-{trial}", "harbor.trial.name": trial})
    )
    scope = rs.scope_spans.add()
    for j in range(3):
        span = scope.spans.add(
            trace_id=trace_id,
            span_id=bytes([j + 1]) * 8,
            name="execute_tool Read",
            kind=1,
            start_time_unix_nano=start + j * S,
            end_time_unix_nano=start + j * S + S // 2,
        )
        span.attributes.extend(
            _kv(
                {
                    "gen_ai.operation.name": "execute_tool",
                    "gen_ai.tool.name": "Read",
                    "gen_ai.tool.call.id": f"call_{j}",
                    "gen_ai.tool.call.arguments": json.dumps({"file_path": f"/r/{j % 2}.py"}),
                }
            )
        )
    return req.SerializeToString()


def test_the_argument_lookup_reads_otel_traces_by_the_trials_key_range(store_dir, unique):
    store = open_client(store_dir)
    ensure_schema(store.client)
    insert_requests(
        store, Signal.traces, [_trial_request(f"{unique}-a", T0), _trial_request(f"{unique}-b", T0 + 3600 * S)]
    )
    resolve_trials(store.client, "", [f"{unique}-a", f"{unique}-b"], time.time_ns())  # the keeper's work
    params = {"tenant": "", "trial": f"{unique}-a", "job": "", "limit": 1000}
    sql = behavior_sql.TOOL_CALLS
    rows = store.client.query(sql, parameters=params).result_rows
    # each call met its own raw span: the first and third calls' arguments are the same, the second's differ
    keys = [row[-1] for row in rows]
    assert len(keys) == 3 and None not in keys and keys[0] == keys[2] != keys[1]
    plan = [r[0] for r in store.client.query("EXPLAIN indexes = 1 " + sql, parameters=params).result_rows]
    read = plan[next(i for i, line in enumerate(plan) if "ReadFromMergeTree (default.otel_traces)" in line) :]
    read = (
        read[: next(i for i, line in enumerate(read) if "ReadFromMergeTree" in line and i > 0)]
        if any("ReadFromMergeTree" in line for line in read[1:])
        else read
    )
    conditions = [line.strip() for line in read if "Condition:" in line]
    assert any("ServiceName" in c and "SpanName" in c and "toDateTime(Timestamp)" in c for c in conditions), conditions
