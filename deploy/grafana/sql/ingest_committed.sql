-- Items (spans, log records, data points) acknowledged per second, by signal: each committed export request
-- is recorded with its accepted item count when it is stored (harborlight_ingested_requests, kept 2 days).
SELECT
    $__timeInterval(ReceivedAt) AS time,
    sumIf(Items, Signal = 'traces') / $__interval_s AS spans_per_s,
    sumIf(Items, Signal = 'logs') / $__interval_s AS log_records_per_s,
    sumIf(Items, Signal = 'metrics') / $__interval_s AS data_points_per_s,
    count() / $__interval_s AS requests_per_s
FROM harborlight_ingested_requests FINAL
WHERE $__timeFilter(ReceivedAt)
GROUP BY time
ORDER BY time
