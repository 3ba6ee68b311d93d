"""One trial's read of its raw spans (harborlight/transfer/store_read.py, the export's and the trajectory's read)
is bounded by its traces' first to last second (otel_traces_trace_id_ts), which otel_traces' primary key ranges
over, not a trace-id bloom check of every granule of the table (which grew with the store: issue 18). Read on
Harbor's own fixture job, imported with `harborlight import harbor`."""

from harborlight.transfer import store_read
from tests.importers.harbor_job import import_job


def _primary_key_conditions(client, sql: str, params: dict) -> list[str]:
    """The primary-key conditions of the plan's otel_traces read."""
    plan = [r[0].strip() for r in client.query("EXPLAIN indexes = 1 " + sql, parameters=params).result_rows]
    at = next(i for i, line in enumerate(plan) if "ReadFromMergeTree (default.otel_traces)" in line)
    read = plan[at:]
    read = read[: next((i for i, line in enumerate(read) if i > 0 and "ReadFromMergeTree" in line), len(read))]
    key = next(i for i, line in enumerate(read) if line == "PrimaryKey")
    return [line for line in read[key : key + 4] if line.startswith("Condition:")]


def test_a_trials_raw_spans_are_read_within_its_traces_time_range(server, unique, tmp_path, capsys):
    job = f"spans-{unique}"
    trial_dir, _ = import_job(capsys, server, tmp_path / "src", job, "hello-world__subagent")
    store = server.store
    _, telemetry = store_read.read_trial(store, trial_dir.name, job)
    spans = [e for e in telemetry.events if e.source == "otel_traces"]
    raw = dict(
        store.client.query(
            "SELECT SpanId, SpanAttributes FROM otel_traces WHERE SpanId IN {s:Array(String)}",
            parameters={"s": [e.span_id for e in spans]},
        ).result_rows
    )
    # every span event carries its own raw span's attributes
    assert spans and all(e.attributes == dict(raw[e.span_id]) for e in spans)

    params = {"tenant": "", "span_traces": sorted({e.trace_id for e in spans})}
    conditions = _primary_key_conditions(store.client, store_read.SPANS, params)
    assert any("toDateTime(Timestamp)" in c for c in conditions), conditions
