-- Ingest lag: seconds from the newest item each table holds (a span's end, a log record's time) to now,
-- over the last hour; and seconds since the last committed export request.
SELECT
    dateDiff('millisecond', (SELECT maxOrNull(Timestamp + toIntervalNanosecond(Duration)) FROM otel_traces
                             WHERE Timestamp > now() - INTERVAL 1 HOUR), now64(3)) / 1000 AS spans_lag_s,
    dateDiff('millisecond', (SELECT maxOrNull(Timestamp) FROM otel_logs
                             WHERE Timestamp > now() - INTERVAL 1 HOUR), now64(3)) / 1000 AS logs_lag_s,
    dateDiff('millisecond', (SELECT maxOrNull(Timestamp) FROM agent_events
                             WHERE Timestamp > now() - INTERVAL 1 HOUR), now64(3)) / 1000 AS agent_events_lag_s,
    dateDiff('second', (SELECT maxOrNull(ReceivedAt) FROM harborlight_ingested_requests), now()) AS last_commit_age_s
