"""The statements grafana-clickhouse-datasource sends, taken from its source (github.com/grafana/clickhouse-datasource).

Generated statements are the output of the plugin's own generator, `generateSql` in src/data/sqlGenerator.ts,
run under node with the options its query editor sets for a new query with OTel on and `otelVersion: latest`
(src/otel.ts' column maps; getDefaultTraceFilters / getDefaultTraceOrderBy / getDefaultLogsFilters /
getDefaultLogsOrderBy of src/components/queryBuilder/defaultQueryOptions.ts; limit 1000; the trace-id lookup with
meta.isTraceIdMode, meta.traceId and meta.hasTraceTimestampTable; the log volume as
Datasource.getSupplementaryLogsVolumeQuery builds it for a one-minute interval). Release v4.20.0 (973c4a5) and
main at 1d04063 generate the same statements except the trace-id lookup (main names its WITH values
__gf_trace_id, __gf_trace_start, __gf_trace_end). `__TRACE_ID__` stands for the trace id a user opens.

Metadata statements are written here as the plugin's source writes them (src/data/CHDatasource.ts: fetchDatabases,
fetchTables, fetchColumnsFromTable, fetchUniqueMapKeys, fetchTagValuesFromSchema, fetchSqlFunctions,
canUseAdhocFilters; pkg/plugin/schema.go: fetchTables, fetchColumnsForAllTables, the distinct values query;
pkg/plugin/driver.go: CheckMinServerVersion), and ad hoc filters as src/data/adHocFilter.ts' apply() appends them.
"""

TRACE_SEARCH = (
    'SELECT "TraceId" as traceID, "ServiceName" as serviceName, "SpanName" as operationName, '
    '"Timestamp" as startTime, multiply("Duration", 0.000001) as duration FROM '
    '"default"."otel_traces" WHERE ( Timestamp >= $__fromTime AND Timestamp <= $__toTime ) AND ( '
    "ParentSpanId = '' ) AND ( Duration > 0 ) ORDER BY Timestamp DESC, Duration DESC LIMIT 1000"
)

TRACE_ID_LOOKUP_4_20 = (
    'WITH \'__TRACE_ID__\' as trace_id, (SELECT min(Start) FROM "default"."otel_traces_trace_id_ts" '
    "WHERE TraceId = trace_id) as trace_start, (SELECT max(End) + 1 FROM "
    '"default"."otel_traces_trace_id_ts" WHERE TraceId = trace_id) as trace_end SELECT "TraceId" as '
    'traceID, "SpanId" as spanID, "ParentSpanId" as parentSpanID, "ServiceName" as serviceName, '
    '"SpanName" as operationName, multiply(toUnixTimestamp64Nano("Timestamp"), 0.000001) as '
    "startTime, multiply(\"Duration\", 0.000001) as duration, arrayMap(key -> map('key', key, "
    "'value',\"SpanAttributes\"[key]), mapKeys(\"SpanAttributes\")) as tags, arrayMap(key -> map('key', "
    'key, \'value\',"ResourceAttributes"[key]), mapKeys("ResourceAttributes")) as serviceTags, '
    "if(\"StatusCode\" IN ('Error', 'STATUS_CODE_ERROR'), 2, 0) as statusCode, arrayMap((name, "
    "timestamp, attributes) -> tuple(name, toString(toUnixTimestamp64Milli(timestamp)), arrayMap(key "
    "-> map('key', key, 'value', attributes[key]), mapKeys(attributes)))::Tuple(name String, "
    'timestamp String, fields Array(Map(String, String))), "Events".Name, "Events".Timestamp, '
    '"Events".Attributes) AS logs, arrayMap((traceID, spanID, attributes) -> tuple(traceID, spanID, '
    "arrayMap(key -> map('key', key, 'value', attributes[key]), mapKeys(attributes)))::Tuple(traceID "
    'String, spanID String, tags Array(Map(String, String))), "Links".TraceId, "Links".SpanId, '
    '"Links".Attributes) AS references, "SpanKind" as kind, "StatusMessage" as statusMessage, '
    '"TraceState" as traceState FROM "default"."otel_traces" WHERE traceID = trace_id AND '
    '"Timestamp" >= trace_start AND "Timestamp" <= trace_end'
)

TRACE_ID_LOOKUP_MAIN = (
    "WITH '__TRACE_ID__' as __gf_trace_id, (SELECT min(Start) FROM "
    '"default"."otel_traces_trace_id_ts" WHERE TraceId = __gf_trace_id) as __gf_trace_start, (SELECT '
    'max(End) + 1 FROM "default"."otel_traces_trace_id_ts" WHERE TraceId = __gf_trace_id) as '
    '__gf_trace_end SELECT "TraceId" as traceID, "SpanId" as spanID, "ParentSpanId" as parentSpanID, '
    '"ServiceName" as serviceName, "SpanName" as operationName, '
    'multiply(toUnixTimestamp64Nano("Timestamp"), 0.000001) as startTime, multiply("Duration", '
    "0.000001) as duration, arrayMap(key -> map('key', key, 'value',\"SpanAttributes\"[key]), "
    "mapKeys(\"SpanAttributes\")) as tags, arrayMap(key -> map('key', key, "
    '\'value\',"ResourceAttributes"[key]), mapKeys("ResourceAttributes")) as serviceTags, '
    "if(\"StatusCode\" IN ('Error', 'STATUS_CODE_ERROR'), 2, 0) as statusCode, arrayMap((name, "
    "timestamp, attributes) -> tuple(name, toString(toUnixTimestamp64Milli(timestamp)), arrayMap(key "
    "-> map('key', key, 'value', attributes[key]), mapKeys(attributes)))::Tuple(name String, "
    'timestamp String, fields Array(Map(String, String))), "Events".Name, "Events".Timestamp, '
    '"Events".Attributes) AS logs, arrayMap((traceID, spanID, attributes) -> tuple(traceID, spanID, '
    "arrayMap(key -> map('key', key, 'value', attributes[key]), mapKeys(attributes)))::Tuple(traceID "
    'String, spanID String, tags Array(Map(String, String))), "Links".TraceId, "Links".SpanId, '
    '"Links".Attributes) AS references, "SpanKind" as kind, "StatusMessage" as statusMessage, '
    '"TraceState" as traceState FROM "default"."otel_traces" WHERE traceID = __gf_trace_id AND '
    '"Timestamp" >= __gf_trace_start AND "Timestamp" <= __gf_trace_end'
)

LOGS_LIST = (
    'SELECT Timestamp as "timestamp", Body as "body", SeverityText as "level", TraceId as "traceID", '
    'ResourceAttributes, ScopeAttributes, LogAttributes FROM "default"."otel_logs" WHERE ( timestamp '
    ">= $__fromTime AND timestamp <= $__toTime ) ORDER BY timestamp DESC LIMIT 1000"
)

LOG_VOLUME = (
    'SELECT toStartOfInterval("Timestamp", INTERVAL 1 MINUTE) as "time", '
    'sum(multiSearchAny(toString("SeverityText"), '
    "['critical','fatal','crit','alert','emerg','CRITICAL','FATAL','CRIT','ALERT','EMERG','Critical',"
    "'Fatal','Crit','Alert','Emerg'])) as critical, sum(multiSearchAny(toString(\"SeverityText\"), "
    "['error','err','eror','ERROR','ERR','EROR','Error','Err','Eror'])) as error, "
    'sum(multiSearchAny(toString("SeverityText"), '
    "['warn','warning','WARN','WARNING','Warn','Warning'])) as warn, "
    'sum(multiSearchAny(toString("SeverityText"), '
    "['info','information','informational','INFO','INFORMATION','INFORMATIONAL','Info','Information',"
    "'Informational'])) as info, sum(multiSearchAny(toString(\"SeverityText\"), "
    "['debug','dbug','DEBUG','DBUG','Debug','Dbug'])) as debug, "
    "sum(multiSearchAny(toString(\"SeverityText\"), ['trace','TRACE','Trace'])) as trace, "
    "sum(multiSearchAny(toString(\"SeverityText\"), ['unknown','UNKNOWN','Unknown'])) as unknown FROM "
    '"default"."otel_logs" WHERE ( time >= $__fromTime AND time <= $__toTime ) GROUP BY time ORDER '
    "BY time ASC"
)

MAP_KEY_PROBE_ROW_SAMPLE = 100000  # src/data/CHDatasource.ts
METADATA = {
    "databases": "SHOW DATABASES",
    "tables": 'SHOW TABLES FROM "default"',
    "describe": 'DESC TABLE "default"."otel_traces"',
    "map keys (OTel table, last 6 hours)": 'SELECT DISTINCT arrayJoin("ResourceAttributes".keys) as keys FROM '
    '"default"."otel_logs" WHERE "Timestamp" >= now() - INTERVAL 6 HOUR LIMIT 1000',
    "map keys (sampled rows)": 'SELECT DISTINCT arrayJoin("SpanAttributes".keys) as keys FROM '
    f'(SELECT "SpanAttributes" FROM "default"."otel_traces" LIMIT {MAP_KEY_PROBE_ROW_SAMPLE}) LIMIT 1000',
    "map values": 'SELECT DISTINCT "ResourceAttributes"[\'service.name\'] FROM "default"."otel_logs" WHERE '
    "mapContains(\"ResourceAttributes\", 'service.name') LIMIT 1000",
    "columns of a table": "SELECT name, type, table FROM system.columns "
    "WHERE database IN ('default') AND table = 'otel_logs'",
    "columns for ad hoc keys": "SELECT name, type, table FROM system.columns",
    "functions": "\n      SELECT\n        name, is_aggregate, case_insensitive, alias_to, origin, description,\n"
    "        syntax, arguments, returned_value, examples, categories\n      FROM system.functions\n"
    "      LIMIT 10000\n    ",
    "version": "SELECT version()",
    "backend tables": "SELECT database, name FROM system.tables ORDER BY database, name",
    "backend columns": "SELECT database, table, name, type, comment FROM system.columns WHERE (database, table) IN "
    "(('default', 'otel_traces'), ('default', 'otel_logs')) ORDER BY database, table, position",
    "current database": "SELECT currentDatabase()",
    "backend distinct values": "SELECT 'ServiceName' AS col_name, toString(`ServiceName`) AS val FROM (SELECT DISTINCT "
    "`ServiceName` FROM default.otel_logs SETTINGS max_execution_time=10) UNION ALL SELECT "
    "'SeverityText' AS col_name, toString(`SeverityText`) AS val FROM (SELECT DISTINCT "
    "`SeverityText` FROM default.otel_logs SETTINGS max_execution_time=10)",
}


def ad_hoc(sql: str, table: str, filters: str) -> str:
    """AdHocFilter.apply(): the statement with `settings additional_table_filters={'<table>' : '<filters>'}`."""
    return f"{sql.replace(';', '', 1)} settings additional_table_filters={{'{table}' : '{filters}'}}"


def ad_hoc_filter(key: str, operator: str, value: str) -> str:
    """AdHocFilter.buildFilterString() for one filter: ` key op \\'value\\' ` (escapeValueBasedOnOperator), a Map
    key `Col.a.b` as `Col[\\'a.b\\']` (escapeKey)."""
    column, dot, map_key = key.partition(".")
    if dot and column in ("ResourceAttributes", "ScopeAttributes", "LogAttributes", "SpanAttributes"):
        key = f"{column}[\\'{map_key}\\']"
    return f" {key} {operator} \\'{value}\\' "
