"""One trial's lifecycle reads (harborlight/read/statements/trial_rows_sql.py TRIAL_LIFECYCLE, the trial row's harness
spans, and harborlight/read/statements/behavior_sql.py GOLD_PATCH, the task's reference fix) read otel_traces by its
primary key: the trial's services and time range, not every trial's lifecycle spans (which grew with the
store: issue 18). Read from a store the receiver's own write path filled (the session's store: chDB opens
one data directory per process)."""

import time
import uuid

from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.proto.common.v1.common_pb2 import AnyValue, KeyValue

from harborlight.agent import identity as agent_identity
from harborlight.commit.otlp_insert import insert_requests
from harborlight.read.statements import behavior_sql, producer_totals_sql, trial_rows_sql
from harborlight.read.statements.load_trials import load_trials
from harborlight.store import Signal, ensure_schema, open_client
from harborlight.summaries.resolve import resolve_trials

T0 = 1_764_547_200_000_000_000
S = 1_000_000_000
GOLD = "diff --git a/src/app.py b/src/app.py\n--- a/src/app.py\n+++ b/src/app.py\n@@ -1 +1 @@\n-a\n+b\n"


def _kv(values: dict) -> list[KeyValue]:
    return [KeyValue(key=k, value=AnyValue(string_value=v)) for k, v in values.items()]


def _harness_request(job: str, trial: str, start: int, reward: str) -> bytes:
    """A trial's harness spans as the Harbor import sends them: phases under the harbor.trial root."""
    trace_id = uuid.uuid4().bytes
    req = ExportTraceServiceRequest()
    rs = req.resource_spans.add()
    rs.resource.attributes.extend(_kv({"service.name": "harbor", "harbor.job.name": job, "harbor.trial.name": trial}))
    scope = rs.scope_spans.add()
    root = scope.spans.add(
        trace_id=trace_id,
        span_id=b"\x01" * 8,
        name="harbor.trial",
        kind=1,
        start_time_unix_nano=start,
        end_time_unix_nano=start + 60 * S,
    )
    root.attributes.extend(_kv({"harbor.task.gold_patch": GOLD}))
    for j, (name, attrs) in enumerate(
        (("harbor.agent_execution", {}), ("harbor.verifier", {"harbor.reward.reward": reward}))
    ):
        span = scope.spans.add(
            trace_id=trace_id,
            span_id=bytes([j + 2]) * 8,
            parent_span_id=b"\x01" * 8,
            name=name,
            kind=1,
            start_time_unix_nano=start + (1 + 30 * j) * S,
            end_time_unix_nano=start + (29 + 30 * j) * S,
        )
        span.attributes.extend(_kv(attrs))
    return req.SerializeToString()


def _otel_traces_conditions(client, sql: str, params: dict) -> list[str]:
    """The primary-key conditions of the plan's otel_traces read."""
    plan = [r[0] for r in client.query("EXPLAIN indexes = 1 " + sql, parameters=params).result_rows]
    at = next(i for i, line in enumerate(plan) if "ReadFromMergeTree (default.otel_traces)" in line)
    read = plan[at:]
    end = next((i for i, line in enumerate(read) if i > 0 and "ReadFromMergeTree" in line), len(read))
    return [line.strip() for line in read[:end] if "Condition:" in line]


def _keyed(conditions: list[str]) -> bool:
    return any("ServiceName" in c and "toDateTime(Timestamp)" in c for c in conditions)


def _store(store_dir, unique):
    store = open_client(store_dir)
    ensure_schema(store.client)
    job = f"job-{unique}"
    insert_requests(
        store,
        Signal.traces,
        [_harness_request(job, f"{unique}-a", T0, "1.0"), _harness_request(job, f"{unique}-b", T0 + 3600 * S, "0.0")],
    )
    resolve_trials(store.client, "", [f"{unique}-a", f"{unique}-b"], time.time_ns())  # the keeper's work
    return store, job


def test_the_gold_patch_lookup_reads_otel_traces_by_the_trials_key_range(store_dir, unique):
    store, job = _store(store_dir, unique)
    params = {"tenant": "", "trial": f"{unique}-a", "job": job}
    assert store.client.query(behavior_sql.GOLD_PATCH, parameters=params).result_rows == [(GOLD,)]
    assert _keyed(_otel_traces_conditions(store.client, behavior_sql.GOLD_PATCH, params))


def test_a_trials_lifecycle_reads_otel_traces_by_the_trials_key_range(store_dir, unique):
    store, job = _store(store_dir, unique)
    # each trial read alone gets its own lifecycle: its interval and its reward, not the other trial's
    for trial, start, reward in ((f"{unique}-a", T0, 1.0), (f"{unique}-b", T0 + 3600 * S, 0.0)):
        [loaded] = load_trials(store.client, "", jobs=[job], trial=trial)
        assert (loaded.facts.started_at, loaded.facts.finished_at) == (start / S, (start + 60 * S) / S)
        assert loaded.facts.rewards == {"reward": reward}
    params = {"tenant": "", "jobs": [job], "trials": [f"{unique}-a"], **agent_identity.run_parameters([])}
    assert _keyed(_otel_traces_conditions(store.client, trial_rows_sql.TRIAL_LIFECYCLE.text, params))
    # a whole job's lifecycle (no names) is read unbounded, every trial of it
    whole = load_trials(store.client, "", jobs=[job])
    assert [t.facts.rewards for t in whole] == [{"reward": 1.0}, {"reward": 0.0}]


def test_the_trace_totals_final_metrics_lookup_reads_otel_traces_by_the_trials_key_range(store_dir, unique):
    store, job = _store(store_dir, unique)
    params = {"tenant": "", "trial": f"{unique}-a", "jobs": [job]}
    assert _keyed(_otel_traces_conditions(store.client, producer_totals_sql.FINAL_METRICS, params))
