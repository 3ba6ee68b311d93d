"""What the read-only ClickHouse interface lets through, decided from ClickHouse's own parse of a statement.

Pure: `EXPLAIN AST` text in, a verdict out; URL parameters in, settings out; a table listing in, the tenant's
`additional_table_filters` out. The engine enforces the rest itself: every statement runs with `readonly = 1`
applied last (so no INSERT, DDL, SYSTEM, table function that writes, nor any settings change inside the
statement), and with tenants on every table is filtered by the caller's tenant.
"""

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

READONLY, ACCESS_DENIED, SYNTAX_ERROR = 164, 497, 62
TENANT_ATTRIBUTE = "harborlight.tenant"  # the resource attribute the collector stamps on every row with tenants on


class Refused(Exception):
    def __init__(self, code: int, message: str) -> None:
        super().__init__(message)
        self.code = code


# Statements that only read (the first node of EXPLAIN AST). SET and USE are answered without running.
_READ_STATEMENTS = {
    "SelectWithUnionQuery", "SelectIntersectExceptQuery", "ShowTables", "ShowColumns", "ShowCreateTableQuery",
    "DescribeQuery", "ExistsTableQuery", "ExistsDatabaseQuery", "ExistsViewQuery", "Explain",
}
# Nodes that carry a statement's INTO OUTFILE literal as a direct child.
_QUERY_WITH_OUTPUT = _READ_STATEMENTS
# Table functions that read nothing outside the store; every other one (file, url, s3, remote, merge, ...) is refused.
SAFE_TABLE_FUNCTIONS = {
    "numbers", "numbers_mt", "zeros", "zeros_mt", "generaterandom", "generateseries", "generate_series", "values",
    "view", "null", "format", "one",
}
# Ordinary functions that read files or other tables behind the filters' back.
UNSAFE_FUNCTIONS = {"file", "catboostevaluate", "evalmlmethod", "modelevaluate", "joinget", "joingetornull"}
# System tables holding secrets, other callers' queries or server internals.
SECRET_SYSTEM_TABLES = {
    "processes", "query_log", "query_thread_log", "query_views_log", "query_metric_log", "text_log", "trace_log",
    "session_log", "part_log", "asynchronous_insert_log", "asynchronous_inserts", "processors_profile_log",
    "opentelemetry_span_log", "users", "roles", "grants", "role_grants", "quotas", "quota_limits", "quota_usage",
    "quotas_usage", "row_policies", "settings_profiles", "settings_profile_elements", "named_collections",
    "user_directories", "zookeeper", "zookeeper_log", "zookeeper_connection", "dictionaries", "backups",
    "backup_log", "blob_storage_log", "s3queue_log", "crash_log", "error_log", "query_cache", "stack_trace",
    "user_processes", "kafka_consumers", "certificates",
}
# URL settings a caller may not send: they would lift the guard, read files, or share results across tenants.
_DENIED_SETTING_PREFIXES = (
    "readonly", "allow_ddl", "additional_table_filters", "dialect", "format_schema", "output_format_schema",
    "format_template", "use_query_cache", "enable_reads_from_query_cache", "enable_writes_to_query_cache",
    "query_cache", "allow_introspection_functions", "format_display_secrets", "parallel_replicas",
    "cluster_for_parallel_replicas", "allow_experimental_parallel_reading", "enable_parallel_replicas",
    "max_parallel_replicas", "max_server_memory",
)
# URL parameters of ClickHouse's HTTP interface that are not settings.
NOT_SETTINGS = {
    "query", "database", "default_format", "query_id", "session_id", "session_timeout", "session_check", "user",
    "password", "quota_key", "compress", "decompress", "buffer_size", "wait_end_of_query", "client_protocol_version",
    "role", "send_progress_in_http_headers", "http_headers_progress_interval_ms", "enable_http_compression",
    "http_zlib_compression_level", "cancel_http_readonly_queries_on_client_close", "http_response_buffer_size",
}
_NODE = re.compile(r"^( *)(\S+)(?: (\S+))?")
_SET_NAMES = re.compile(r"(?:^|,)\s*([A-Za-z_][A-Za-z0-9_]*)\s*=")


@dataclass(frozen=True)
class Statement:
    kind: str  # the first node of EXPLAIN AST: SelectWithUnionQuery, Set, UseQuery, ...
    output_format: str | None  # its FORMAT clause, if any


def check(ast: str, table_functions: Iterable[str], database: str) -> Statement:
    """The verdict on one statement from its `EXPLAIN AST` text; raises Refused."""
    nodes = [(len(m.group(1)), m.group(2), m.group(3) or "") for line in ast.splitlines() if (m := _NODE.match(line))]
    if not nodes:
        raise Refused(SYNTAX_ERROR, "Empty query")
    kind = nodes[0][1]
    if kind in ("Set", "UseQuery"):
        return Statement(kind, None)
    if kind not in _READ_STATEMENTS:
        raise Refused(READONLY, f"harborlight's ClickHouse interface is read-only: {kind} is not allowed")
    unsafe_table_functions = {f.lower() for f in table_functions} - SAFE_TABLE_FUNCTIONS
    output_format = None
    parents: list[str] = []
    for depth, node, arg in nodes:
        del parents[depth:]
        parent = parents[-1] if parents else ""
        parents.append(node)
        if node == "Function" and (arg.lower() in unsafe_table_functions or arg.lower() in UNSAFE_FUNCTIONS):
            raise Refused(ACCESS_DENIED, f"function {arg} reads outside the store and is not allowed here")
        if node == "TableIdentifier":
            db, _, table = arg.rpartition(".")
            if (db or database) == "system" and table.lower() in SECRET_SYSTEM_TABLES:
                raise Refused(ACCESS_DENIED, f"system.{table} is not readable through harborlight")
        if parent in _QUERY_WITH_OUTPUT and depth == 1:
            if node == "Literal":
                raise Refused(READONLY, "INTO OUTFILE writes a file and is not allowed here")
            if node == "Identifier" and kind != "ShowCreateTableQuery" and kind != "ExistsTableQuery":
                output_format = arg
    if kind == "ShowTables" and "PROCESSLIST" in ast.upper():
        raise Refused(ACCESS_DENIED, "SHOW PROCESSLIST is not readable through harborlight")
    return Statement(kind, output_format)


def set_statement_names(sql: str) -> list[str]:
    """The setting names of `SET a = 1, b = 'x'` (as formatted by ClickHouse)."""
    return _SET_NAMES.findall(re.sub(r"'(?:[^'\\]|\\.)*'", "''", sql.strip()[3:]))


def is_denied_setting(name: str) -> bool:
    return name.lower().startswith(_DENIED_SETTING_PREFIXES)


def url_settings(params: Mapping[str, str]) -> dict[str, str]:
    """The settings a request's URL parameters carry; raises Refused for one that would lift the guard.
    A `readonly` the client sends is dropped: the interface applies `readonly = 1` itself."""
    settings: dict[str, str] = {}
    for name, value in params.items():
        if name in NOT_SETTINGS or name.startswith("param_") or name == "readonly":
            continue
        if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name):
            raise Refused(115, f"Unknown setting '{name}'")
        if is_denied_setting(name):
            raise Refused(READONLY, f"Cannot modify '{name}' setting in harborlight's read-only interface")
        settings[name] = value
    return settings


def tenant_filters(tables: Iterable[tuple[str, str, list[str]]], tenant: str) -> dict[str, str]:
    """`additional_table_filters` for one tenant: every table, view and materialized view of the store (as
    (database, name, columns)) keeps only the tenant's rows; one with no tenant column keeps none."""
    literal = _sql_string(tenant)
    filters: dict[str, str] = {}
    for database, name, columns in tables:
        if "Tenant" in columns:
            expr = f"Tenant = {literal}"
        elif "ResourceAttributes" in columns:
            expr = f"ResourceAttributes[{_sql_string(TENANT_ATTRIBUTE)}] = {literal}"
        elif {"TraceId", "Start", "End"} <= set(columns):  # otel_traces_trace_id_ts: the tenant's traces only
            expr = (f"TraceId IN (SELECT TraceId FROM `{database}`.otel_traces "
                    f"WHERE ResourceAttributes[{_sql_string(TENANT_ATTRIBUTE)}] = {literal})")
        else:
            expr = "0"
        filters[f"{database}.{name}"] = expr
    for table in SECRET_SYSTEM_TABLES:  # behind the AST check, in case a name reaches them another way
        filters[f"system.{table}"] = "0"
    return filters


def filters_setting(filters: Mapping[str, str]) -> str:
    """The value of `additional_table_filters`: a Map literal."""
    return "{" + ", ".join(f"{_sql_string(k)}: {_sql_string(v)}" for k, v in filters.items()) + "}"


def _sql_string(value: str) -> str:
    return "'" + value.replace("\\", "\\\\").replace("'", "\\'") + "'"
