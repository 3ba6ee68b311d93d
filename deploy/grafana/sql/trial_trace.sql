-- The trace view of $trace: the columns and the shape of the data source's own trace-ID lookup, span events as
-- logs and links as references (so the trace view shows them).
WITH ${trace:sqlstring} AS trace_id,
     (SELECT min(Start) FROM otel_traces_trace_id_ts WHERE TraceId = trace_id) AS trace_start,
     (SELECT max(End) + 1 FROM otel_traces_trace_id_ts WHERE TraceId = trace_id) AS trace_end
SELECT
    TraceId AS traceID,
    SpanId AS spanID,
    ParentSpanId AS parentSpanID,
    ServiceName AS serviceName,
    SpanName AS operationName,
    multiply(toUnixTimestamp64Nano(Timestamp), 0.000001) AS startTime,
    multiply(Duration, 0.000001) AS duration,
    arrayMap(k -> map('key', k, 'value', SpanAttributes[k]), mapKeys(SpanAttributes)) AS tags,
    arrayMap(k -> map('key', k, 'value', ResourceAttributes[k]), mapKeys(ResourceAttributes)) AS serviceTags,
    if(StatusCode IN ('Error', 'STATUS_CODE_ERROR'), 2, 0) AS statusCode,
    arrayMap((name, timestamp, attributes) -> tuple(name, toString(toUnixTimestamp64Milli(timestamp)),
             arrayMap(k -> map('key', k, 'value', attributes[k]), mapKeys(attributes)))
                 ::Tuple(name String, timestamp String, fields Array(Map(String, String))),
             Events.Name, Events.Timestamp, Events.Attributes) AS logs,
    arrayMap((traceID, spanID, attributes) -> tuple(traceID, spanID,
             arrayMap(k -> map('key', k, 'value', attributes[k]), mapKeys(attributes)))
                 ::Tuple(traceID String, spanID String, tags Array(Map(String, String))),
             Links.TraceId, Links.SpanId, Links.Attributes) AS references,
    SpanKind AS kind,
    StatusMessage AS statusMessage,
    TraceState AS traceState
FROM otel_traces
WHERE TraceId = trace_id AND Timestamp >= trace_start AND Timestamp <= trace_end
ORDER BY startTime
