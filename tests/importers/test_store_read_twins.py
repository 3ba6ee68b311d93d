"""The Harbor export's read of a job whose trials tell calls twice (harborlight/transfer/store_read.py): its events
are the whole-job twin statement's rows, in order, each with the raw record it came from, and of the
raw records only those of the signal each twin group keeps are read."""

import gc
import uuid

import pytest

from harborlight.agent import twins as agent_twins
from harborlight.sql_text import Sql
from harborlight.transfer import store_read
from harborlight.transfer.errors import UnknownJob
from tests.agent.otlp_build import Logs
from tests.live.twin_job import send_twin_job, trial_names

_JOB = Sql("JobName = {job:String}")
_RECORDS = Sql(f"{_JOB.text} AND Provenance['kind'] != 'derived'")
_REFERENCE = f"""SELECT EventId, SourceTable, TrialName, Kind, Model, InputTokens, OutputTokens, CostUsd, Success,
       ToolCallId FROM ({agent_twins.events(_RECORDS, derived=False, scope=_JOB).text})
ORDER BY TrialName, Timestamp, EventId"""


@pytest.fixture(scope="module")
def twin_job(server) -> str:
    job = f"export-read-{uuid.uuid4().hex[:12]}"
    send_twin_job(server, job)
    return job


def test_each_trials_events_are_the_whole_job_statements_rows_with_their_raw_records(server, twin_job):
    telemetry = store_read.read_job(server.store, twin_job)
    events = [e for trial in telemetry.values() for e in trial.events]
    assert [
        (
            e.event_id,
            e.source,
            e.trial or None,
            e.kind,
            e.model,
            e.input_tokens,
            e.output_tokens,
            e.cost_usd,
            e.success,
            e.tool_call_id,
        )
        for e in events
    ] == server.sql(_REFERENCE, job=twin_job)
    assert set(telemetry) == {*trial_names(twin_job), ""}
    assert {e.source for e in events} == {"otel_traces", "otel_logs"}
    spans = {
        (t, s): dict(a)
        for t, s, a in server.sql(
            "SELECT TraceId, SpanId, SpanAttributes FROM otel_traces "
            "WHERE ResourceAttributes['harbor.job.name'] = {j:String}",
            j=twin_job,
        )
    }
    logs = {
        tuple(key): {**dict(a), "body": body}
        for *key, a, body in server.sql(
            "SELECT ResourceAttributes['harbor.trial.name'], toUnixTimestamp64Nano(Timestamp), LogAttributes, Body "
            "FROM otel_logs WHERE ResourceAttributes['harbor.job.name'] = {j:String}",
            j=twin_job,
        )
    }
    for e in events:  # a log record's time is its event's end (its start when it has no duration)
        raw = spans[(e.trace_id, e.span_id)] if e.source == "otel_traces" else logs[(e.trial, e.end_ns or e.start_ns)]
        assert raw.items() <= e.attributes.items() and (raw or e.name.startswith("harbor.")), e
        # The rest is its dropped twin's content (a kept span's event tells what the span does not), never a body.
        rest = {k: v for k, v in e.attributes.items() if k not in raw}
        twins = (
            [{k: v for k, v in a.items() if k != "body"} for a in logs.values()]
            if e.source == "otel_traces"
            else list(spans.values())
        )
        assert not rest or any(rest.items() <= twin.items() for twin in twins), e


def test_of_the_raw_records_only_the_kept_signals_are_read(server, twin_job):
    """The log records read are those of the log events read (by the event id store_read matches them on),
    fewer than the job's: an event whose span twin is kept is not read."""
    params = {"job": twin_job, "tenant": ""}
    kept = [r for r in server.sql(store_read.JOB.events.text, **params) if r[4] == "otel_logs"]
    read = server.sql(store_read.LOGS, **params, **store_read.log_keys(kept))
    assert {r[0] for r in read} == {r[0] for r in kept}
    [(every_log,)] = server.sql(
        "SELECT count() FROM otel_logs WHERE ResourceAttributes['harbor.job.name'] = {j:String}", j=twin_job
    )
    assert len(read) < every_log


def test_the_cycle_collector_is_as_it_was_after_a_read(server, twin_job):
    assert gc.isenabled()
    store_read.read_job(server.store, twin_job)
    assert gc.isenabled()
    with pytest.raises(UnknownJob):
        store_read.read_job(server.store, f"no-such-job-{uuid.uuid4().hex}")
    assert gc.isenabled()
    gc.disable()
    try:
        store_read.read_job(server.store, twin_job)
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_log_events_of_concurrent_trials_at_the_same_time_keep_their_own_attributes(server):
    """Claude Code's events carry no trace: two trials' prompts logged in the same millisecond by the
    same service are told apart by their own event ids, in one job and across jobs."""
    run = uuid.uuid4().hex[:12]
    sent = {(f"job-{run}-{j}", f"trial-{run}-{t}"): f"prompt {j}{t}" for j in "ab" for t in "12"}
    for (job, trial), prompt in sent.items():
        logs = Logs(
            {"service.name": "claude-code", "harbor.job.name": job, "harbor.trial.name": trial},
            scope="com.anthropic.claude_code.events",
        )
        logs.event({"event.name": "user_prompt", "prompt": prompt}, at_ms=1000, body="claude_code.user_prompt")
        logs.send(server)
    read = {
        (job, trial): [e.attributes["prompt"] for e in telemetry.events]
        for job in {job for job, _ in sent}
        for trial, telemetry in store_read.read_job(server.store, job).items()
    }
    assert read == {key: [prompt] for key, prompt in sent.items()}
