-- The trial's agent events per interval, one series per kind: the API's rows (a call told both as a span and
-- as a log event once).
SELECT
    $__timeInterval(Timestamp) AS time,
    {{kind_counts}}
FROM resolved_events FINAL
WHERE TrialKey = ${trial:sqlstring} AND JobKey = ${job:sqlstring} AND NOT OuterTelling AND $__timeFilter(Timestamp)
GROUP BY time
ORDER BY time
