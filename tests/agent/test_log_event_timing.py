"""A log event is written when its work ends: with a duration it gets a start before and an end at it."""

import httpx

from tests.support.otlp import T0, attrs, logs_request


def test_a_log_event_with_a_duration_ends_when_it_was_logged(server, unique):
    request = logs_request(unique, 1, event_name="claude_code.api_request")
    record = request.resource_logs[0].scope_logs[0].log_records[0]
    record.time_unix_nano = T0 + 10_000_000_000
    record.attributes.extend(attrs(duration_ms=1500, model="claude-sonnet-4"))
    answer = httpx.post(
        f"{server.http_url}/v1/logs",
        content=request.SerializeToString(),
        headers={"content-type": "application/x-protobuf"},
    )
    assert answer.status_code == 200
    rows = server.sql(
        "SELECT toUnixTimestamp64Nano(Timestamp), toUnixTimestamp64Nano(EndTimestamp), DurationNs, TimingQuality "
        "FROM agent_events WHERE ServiceName = {s:String}",
        s=unique,
    )
    assert rows == [(T0 + 8_500_000_000, T0 + 10_000_000_000, 1_500_000_000, "inferred")]
