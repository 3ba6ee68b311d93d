-- The trial's agent events per interval, one series per kind: the API's rows (a call told both as a span and
-- as a log event once).
SELECT
    $__timeInterval(Timestamp) AS time,
    {{kind_counts}}
FROM ({{events:JobName = ${job:sqlstring} AND TrialName = ${trial:sqlstring}}})
WHERE $__timeFilter(Timestamp)
GROUP BY time
ORDER BY time
