"""What the read-only ClickHouse interface lets through, decided from ClickHouse's own parse of a statement.

Pure: `EXPLAIN AST` text in, a verdict out; a setting and its value in, accepted or refused with ClickHouse's
own error; a table listing in, the tenant's `additional_table_filters` out, combined with a caller's. The
engine enforces the rest itself: every statement runs with `readonly = 2` applied last (no INSERT, DDL,
SYSTEM, nor a change of `readonly`), after the interface has checked every setting the request and the
statement's SETTINGS clauses carry, and with tenants on every table is filtered by the caller's tenant.
"""

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from harborlight.sql_text import literal
from harborlight.sqlport.clickhouse_errors import CODES, Refused
from harborlight.sqlport.clickhouse_settings import Unreadable, map_literal, unquoted
from harborlight.store.schema_ddl import TENANT_KEYS, local_name

READONLY, ACCESS_DENIED, SYNTAX_ERROR = CODES["READONLY"], CODES["ACCESS_DENIED"], CODES["SYNTAX_ERROR"]
TABLE_FILTERS = "additional_table_filters"
NO_ROWS = "0"  # the filter of a table a tenant may not read
_TENANT_EXPRESSIONS = frozenset(TENANT_KEYS.values())

# Statements that only read (the first node of EXPLAIN AST). SET and USE are answered without running.
_READ_STATEMENTS = {
    "SelectWithUnionQuery",
    "SelectIntersectExceptQuery",
    "ShowTables",
    "ShowColumns",
    "ShowCreateTableQuery",
    "DescribeQuery",
    "ExistsTableQuery",
    "ExistsDatabaseQuery",
    "ExistsViewQuery",
    "Explain",
}
# Nodes that carry a statement's INTO OUTFILE literal as a direct child.
_QUERY_WITH_OUTPUT = _READ_STATEMENTS
# Table functions that read nothing outside the store; every other one (file, url, s3, remote, merge, ...) is refused.
SAFE_TABLE_FUNCTIONS = {
    "numbers",
    "numbers_mt",
    "zeros",
    "zeros_mt",
    "generaterandom",
    "generateseries",
    "generate_series",
    "values",
    "view",
    "null",
    "format",
    "one",
}
# Ordinary functions that read files or other tables behind the filters' back.
UNSAFE_FUNCTIONS = {"file", "catboostevaluate", "evalmlmethod", "modelevaluate", "joinget", "joingetornull"}
# Functions that tell of the server rather than of the caller's rows (getServerSetting('path') told a tenant the
# data directory): paths, host names, ports, macros, disks' sizes. A tenant may not call them; version(),
# displayName() (clickhouse-go's hello asks it) and getSetting (the statement's own settings) stay.
SERVER_FUNCTIONS = {
    "getserversetting",
    "getmergetreesetting",
    "getmacro",
    "serveruuid",
    "hostname",
    "fqdn",
    "getserverport",
    "tcpport",
    "getoskernelversion",
    "filesystemavailable",
    "filesystemcapacity",
    "filesystemunreserved",
    "filesystemfree",
}
# Settings a tenant's isolation rests on: with them, the tenant filter prunes every other tenant's partitions before
# any row is read (FINAL included). A tenant's statement runs with these values and may not change them: each
# turned the other way let a PREWHERE run on another tenant's rows (tests/clickhouse_http/test_tenant_merged_parts.py).
TENANT_PINS = {"use_partition_pruning": 1, "use_partition_key": 1, "defer_partition_pruning_after_final": 0}
# System tables holding secrets, other callers' queries or server internals.
SECRET_SYSTEM_TABLES = {
    "processes",
    "query_log",
    "query_thread_log",
    "query_views_log",
    "query_metric_log",
    "text_log",
    "trace_log",
    "session_log",
    "part_log",
    "asynchronous_insert_log",
    "asynchronous_inserts",
    "processors_profile_log",
    "opentelemetry_span_log",
    "users",
    "roles",
    "grants",
    "role_grants",
    "quotas",
    "quota_limits",
    "quota_usage",
    "quotas_usage",
    "row_policies",
    "settings_profiles",
    "settings_profile_elements",
    "named_collections",
    "user_directories",
    "zookeeper",
    "zookeeper_log",
    "zookeeper_connection",
    "dictionaries",
    "backups",
    "backup_log",
    "blob_storage_log",
    "s3queue_log",
    "crash_log",
    "error_log",
    "query_cache",
    "stack_trace",
    "user_processes",
    "kafka_consumers",
    "certificates",
}
# What a tenant may read of the engine's own tables (every other system table is refused): names, types and
# definitions, never another tenant's values (system.errors keeps failed statements' messages), counts or sizes
# (system.parts, tables.total_rows, columns.data_compressed_bytes, information_schema.tables.table_rows, events).
# A table maps to the columns a tenant may read; None: all of them.
_ALL = None
TENANT_READABLE: dict[str, frozenset[str] | None] = {
    **{
        f"system.{t}": _ALL
        for t in (
            "one",
            "numbers",
            "numbers_mt",
            "zeros",
            "zeros_mt",
            "functions",
            "table_functions",
            "formats",
            "data_type_families",
            "table_engines",
            "database_engines",
            "aggregate_function_combinators",
            "time_zones",
            "keywords",
            "collations",
            "settings",
            "merge_tree_settings",
            "build_options",
            "licenses",
            "contributors",
        )
    },
    "system.databases": frozenset({"name", "engine", "uuid", "engine_full", "comment", "is_external", "database"}),
    "system.tables": frozenset(
        {
            "database",
            "name",
            "table",
            "uuid",
            "engine",
            "is_temporary",
            "metadata_modification_time",
            "metadata_version",
            "dependencies_database",
            "dependencies_table",
            "create_table_query",
            "engine_full",
            "as_select",
            "parameterized_view_parameters",
            "partition_key",
            "sorting_key",
            "primary_key",
            "sampling_key",
            "unique_key",
            "skipping_indices_types",
            "storage_policy",
            "comment",
            "has_own_data",
            "loading_dependencies_database",
            "loading_dependencies_table",
            "loading_dependent_database",
            "loading_dependent_table",
            "target_database",
            "target_table",
            "definer",
        }
    ),
    "system.columns": frozenset(
        {
            "database",
            "table",
            "name",
            "column",
            "type",
            "position",
            "default_kind",
            "default_expression",
            "comment",
            "is_in_partition_key",
            "is_in_sorting_key",
            "is_in_primary_key",
            "is_in_sampling_key",
            "compression_codec",
            "character_octet_length",
            "numeric_precision",
            "numeric_precision_radix",
            "numeric_scale",
            "datetime_precision",
            "serialization_hint",
            "statistics",
        }
    ),
    **{
        f"information_schema.{t}": _ALL
        for t in (
            "schemata",
            "columns",
            "views",
            "key_column_usage",
            "referential_constraints",
            "engines",
            "character_sets",
            "collations",
        )
    },
    "information_schema.tables": frozenset(
        {
            c
            for name in (
                "table_catalog",
                "table_schema",
                "table_name",
                "table_type",
                "table_collation",
                "table_comment",
                "engine",
                "version",
                "row_format",
                "create_time",
                "create_options",
            )
            for c in (name, name.upper())
        }
    ),
}
_ENGINE_DATABASES = ("system", "information_schema", "INFORMATION_SCHEMA")
# The EXPLAIN kinds a tenant may run: none of them shows rows, parts or granules (ESTIMATE and indexes = 1 do).
_TENANT_EXPLAINS = {
    "EXPLAIN",
    "EXPLAIN AST",
    "EXPLAIN SYNTAX",
    "EXPLAIN QUERY TREE",
    "EXPLAIN PLAN",
    "EXPLAIN PIPELINE",
}
_COLUMN = re.compile(r"^ *COLUMN id: \d+, column_name: (.+?), result_type: .*, source_id: (\d+)$")
_TABLE = re.compile(r"^ *TABLE id: (\d+)(?:, alias: [^,]+)?, table_name: (\S+)$")

# Settings a caller may not change: they would lift the guard, read files, or share results across tenants.
_DENIED_SETTING_PREFIXES = (
    "readonly",
    "allow_ddl",
    "dialect",
    "format_schema",
    "output_format_schema",
    "format_template",
    "use_query_cache",
    "enable_reads_from_query_cache",
    "enable_writes_to_query_cache",
    "query_cache",
    "allow_introspection_functions",
    "format_display_secrets",
    "parallel_replicas",
    "cluster_for_parallel_replicas",
    "allow_experimental_parallel_reading",
    "enable_parallel_replicas",
    "max_parallel_replicas",
    "max_server_memory",
)
# URL parameters of ClickHouse's HTTP interface that are not settings.
NOT_SETTINGS = {
    "query",
    "database",
    "default_format",
    "query_id",
    "session_id",
    "session_timeout",
    "session_check",
    "user",
    "password",
    "quota_key",
    "compress",
    "decompress",
    "buffer_size",
    "wait_end_of_query",
    "client_protocol_version",
    "role",
    "send_progress_in_http_headers",
    "http_headers_progress_interval_ms",
    "enable_http_compression",
    "http_zlib_compression_level",
    "cancel_http_readonly_queries_on_client_close",
    "http_response_buffer_size",
    "stacktrace",
    "close_session",
}
_NODE = re.compile(r"^( *)(\S+)(?: (\S+))?")
_ALIAS = re.compile(r"\(alias (.+?)\)")


@dataclass(frozen=True)
class Statement:
    kind: str  # the first node of EXPLAIN AST: SelectWithUnionQuery, Set, UseQuery, ...
    output_format: str | None  # its FORMAT clause, if any
    settings_clauses: int = 0  # how many SETTINGS clauses it has (statement and subqueries)
    table_aliases: frozenset[str] = frozenset()  # the aliases its tables, table functions and subqueries take
    tables: frozenset[str] = frozenset()  # `db.table` of every table name it has (a CTE's name among them)


def check(ast: str, table_functions: Iterable[str], database: str, text: str = "", tenant: bool = False) -> Statement:
    """The verdict on one statement from its `EXPLAIN AST` text (and its formatted `text`, which tells a FORMAT
    clause from a statement's last identifier, as in `SHOW TABLES FROM default`); raises Refused. A tenant
    (`tenant`) reads only TENANT_READABLE of the engine's tables, and only EXPLAINs that show no counts."""
    lines = ast.splitlines()
    nodes = [(len(m.group(1)), m.group(2), m.group(3) or "", line) for line in lines if (m := _NODE.match(line))]
    if not nodes:
        raise Refused(SYNTAX_ERROR, "Empty query")
    kind = nodes[0][1]
    if kind in ("Set", "UseQuery"):
        return Statement(kind, None)
    if kind not in _READ_STATEMENTS:
        raise Refused(READONLY, f"harborlight's ClickHouse interface is read-only: {kind} is not allowed")
    unsafe_table_functions = {f.lower() for f in table_functions} - SAFE_TABLE_FUNCTIONS
    output_format, clauses, aliases, tables = None, 0, set(), set()
    parents: list[str] = []
    for depth, node, arg, line in nodes:
        del parents[depth:]
        parent = parents[-1] if parents else ""
        parents.append(node)
        if node == "Function" and (arg.lower() in unsafe_table_functions or arg.lower() in UNSAFE_FUNCTIONS):
            raise Refused(ACCESS_DENIED, f"function {arg} reads outside the store and is not allowed here")
        if node == "TableIdentifier":
            db, _, table = arg.rpartition(".")
            tables.add(f"{db or database}.{table}")
            if (db or database) == "system" and table.lower() in SECRET_SYSTEM_TABLES:
                raise Refused(ACCESS_DENIED, f"system.{table} is not readable through harborlight")
            if tenant and (db or database) in _ENGINE_DATABASES:
                name = f"{(db or database).lower()}.{table}"
                if name not in TENANT_READABLE:
                    raise Refused(ACCESS_DENIED, f"{name} is not readable by a tenant")
                if TENANT_READABLE[name] is not None and "view" in parents:  # view() hides its columns
                    raise Refused(ACCESS_DENIED, f"{name} cannot be read inside view() by a tenant")
        if tenant and node == "Function" and arg.lower() in SERVER_FUNCTIONS:
            raise Refused(
                ACCESS_DENIED, f"{arg} tells of the server, not of the tenant's rows, and is not run for a tenant"
            )
        if node == "Function" and arg.lower() == "view":
            parents[-1] = "view"
        if parent == "TableExpression" and (alias := _ALIAS.search(line)):
            aliases.add(alias.group(1))
        if node == "Set" and parent != "Explain":  # an Explain's own Set holds its options (EXPLAIN indexes = 1)
            clauses += 1
        if parent in _QUERY_WITH_OUTPUT and depth == 1:
            if node == "Literal":
                raise Refused(READONLY, "INTO OUTFILE writes a file and is not allowed here")
            if node == "Identifier":
                output_format = arg
    if kind == "ShowTables" and "PROCESSLIST" in ast.upper():
        raise Refused(ACCESS_DENIED, "SHOW PROCESSLIST is not readable through harborlight")
    if tenant:
        _check_tenant_statement(kind, nodes, text)
    if output_format is not None and not text.endswith(f" FORMAT {output_format}"):
        output_format = None
    return Statement(kind, output_format, clauses, frozenset(aliases), frozenset(tables))


def _check_tenant_statement(kind: str, nodes: list, text: str) -> None:
    if kind == "Explain":
        explain = nodes[0][3].strip()
        explain = explain[len("Explain ") : explain.index(" (children") if " (children" in explain else None].strip()
        if explain not in _TENANT_EXPLAINS or any(depth == 1 and node == "Set" for depth, node, _, _ in nodes):
            raise Refused(
                ACCESS_DENIED,
                f"{explain} with its options shows counts and is not run for a tenant"
                if explain in _TENANT_EXPLAINS
                else f"{explain} shows counts and is not run for a tenant",
            )
    if kind in ("ShowTables", "ShowColumns") and " WHERE " in _outside_quotes(text):
        raise Refused(
            ACCESS_DENIED,
            "SHOW ... WHERE reads columns a tenant may not; select from system.tables or system.columns instead",
        )


def _outside_quotes(text: str) -> str:
    """The text with every quoted token blanked."""
    return re.sub(r"'(?:[^'\\]|\\.)*'|`(?:[^`\\]|\\.)*`|\"(?:[^\"\\]|\\.)*\"", "''", text)


def read_columns(query_tree: str) -> set[tuple[str, str]]:
    """(table, column) for every column of a table a statement reads, from its `EXPLAIN QUERY TREE` (the
    analyzer has resolved `*`, aliases, CTEs and subqueries to columns of tables)."""
    lines = query_tree.splitlines()
    tables = {m.group(1): m.group(2) for line in lines if (m := _TABLE.match(line))}
    return {(tables[m.group(2)], m.group(1)) for line in lines if (m := _COLUMN.match(line)) and m.group(2) in tables}


def read_tables(query_tree: str) -> set[str]:
    """Every table a statement reads, from its `EXPLAIN QUERY TREE` (subqueries, CTEs, JOINs, view() and IN
    subqueries resolved to their tables)."""
    return {m.group(2) for line in query_tree.splitlines() if (m := _TABLE.match(line))}


def check_tenant_columns(columns: Iterable[tuple[str, str]]) -> None:
    """Refuses a tenant's read of a column that counts or measures what other tenants stored: a column of an
    engine table outside TENANT_READABLE, or a virtual column of a store table (`_part_offset`, `_part`, ...
    number the rows of parts that hold every tenant's rows)."""
    for table, column in sorted(columns):
        db = table.partition(".")[0]
        allowed = TENANT_READABLE.get(table.lower() if db.lower() == "information_schema" else table, _ALL)
        if db in _ENGINE_DATABASES and allowed is not None and column not in allowed:
            raise Refused(ACCESS_DENIED, f"{table}.{column} is not readable by a tenant")
        if db not in _ENGINE_DATABASES and column.startswith("_"):
            raise Refused(ACCESS_DENIED, f"the virtual column {column} of {table} is not readable by a tenant")


def is_denied_setting(name: str) -> bool:
    return name.lower().startswith(_DENIED_SETTING_PREFIXES)


@dataclass(frozen=True)
class Bound:
    """A limit the interface applies to every statement, as a ClickHouse settings constraint: `value` is what a
    statement runs with, and a caller may set anything from `low` to `high` (None: no upper end) instead."""

    value: int
    low: int = 1
    high: int | None = None

    @classmethod
    def cap(cls, value: int) -> "Bound":
        """A limit a caller may lower, down to 1 (0 would mean unlimited), but not lift."""
        return cls(value, 1, value)


def check_setting(name: str, value: str, bounds: Mapping[str, Bound]) -> None:
    """Refuses, with ClickHouse's own error, a setting that would lift the guard or one of the interface's limits.
    `value` is the setting's literal (a URL value or a formatted literal); a bounded setting must stay within its
    bounds: the check of a ClickHouse settings constraint `<min>low</min><max>high</max>`."""
    if name.lower() == "allow_ddl":
        raise Refused(
            CODES["QUERY_IS_PROHIBITED"],
            "Cannot modify 'allow_ddl' setting when DDL queries are prohibited for the user",
        )
    if is_denied_setting(name):
        raise Refused(READONLY, f"Cannot modify '{name}' setting in readonly mode")
    if name not in bounds:
        return
    try:
        number = float(unquoted(value))
    except (ValueError, Unreadable):
        raise Refused(
            CODES["CANNOT_PARSE_INPUT_ASSERTION_FAILED"], f"Cannot parse {value!r} as a value of {name}"
        ) from None
    bound = bounds[name]
    if bound.high is not None and number > bound.high:
        raise Refused(CODES["SETTING_CONSTRAINT_VIOLATION"], f"Setting {name} shouldn't be greater than {bound.high:g}")
    if number < bound.low:
        raise Refused(CODES["SETTING_CONSTRAINT_VIOLATION"], f"Setting {name} shouldn't be less than {bound.low:g}")


def url_settings(params: Mapping[str, str]) -> dict[str, str]:
    """The settings a request's URL parameters carry (ClickHouse's HTTPHandler: every parameter that is not
    one of its own). A `readonly` the client sends is dropped: the interface applies `readonly` itself."""
    settings: dict[str, str] = {}
    for name, value in params.items():
        if name in NOT_SETTINGS or name.startswith("param_") or name == "readonly" or not name:
            continue
        if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name):
            raise Refused(CODES["UNKNOWN_SETTING"], f"Unknown setting '{name}'")
        settings[name] = value
    return settings


def tenant_key(partition_key: str) -> str | None:
    """The tenant expression a table's partition key (as system.tables writes it) is led by, or None: a table of
    the store keeps each tenant's rows in parts of their own exactly when its key is led by one of
    harborlight/store/schema_ddl.py's TENANT_KEYS."""
    return next((e for e in _TENANT_EXPRESSIONS if partition_key == e or partition_key.startswith(f"({e}, ")), None)


def tenant_filters(tables: Iterable[tuple[str, str, str, str]], tenant: str) -> dict[str, str]:
    """`additional_table_filters` for one tenant, from the store's tables as (database, name, engine, partition
    key). A table whose partition key is led by a row's tenant keeps the tenant's rows, filtered on exactly that
    expression: the engine prunes every other tenant's partitions (so their parts) before it reads a row, so no
    expression of the statement is ever evaluated on another tenant's rows. A Distributed table is filtered as
    the local table it reads (the cluster form's `<name>_local`). Every other table, and every materialized view
    (read through its view, a table's rows would not be pruned by the table's key), keeps no rows, and a tenant's
    statement naming one is refused (check_tenant_tables)."""
    tenant_literal = literal(tenant)
    keys = {(database, name): key for database, name, _, key in tables}
    filters: dict[str, str] = {}
    for database, name, engine, key in tables:
        if engine == "Distributed":
            key = keys.get((database, local_name(name)), "")
        expr = tenant_key(key) if engine.endswith("MergeTree") or engine == "Distributed" else None
        filters[f"{database}.{name}"] = f"{expr} = {tenant_literal}" if expr else NO_ROWS
    for table in SECRET_SYSTEM_TABLES:  # behind the AST check, in case a name reaches them another way
        filters[f"system.{table}"] = NO_ROWS
    return filters


def check_tenant_tables(tables: Iterable[str], filters: Mapping[str, str]) -> None:
    """Refuses a tenant's statement that reads a table of the store whose parts may hold several tenants' rows
    (one that `tenant_filters` keeps no rows of): its own expressions would be evaluated on them."""
    for table in sorted(tables):
        if table.partition(".")[0] not in _ENGINE_DATABASES and filters.get(table) == NO_ROWS:
            raise Refused(
                ACCESS_DENIED,
                f"{table} is not readable by a tenant: only tables that keep each tenant's "
                "rows in parts of their own are (a view: read the table it writes)",
            )


def combined_filters(
    tenant: Mapping[str, str], caller: list[tuple[str, str]], database: str, aliases: frozenset[str]
) -> list[tuple[str, str]]:
    """The `additional_table_filters` entries for a tenant whose request names its own: for each table the
    tenant filter AND, when the caller names that table (`table` in the current database, or `db.table`),
    the caller's filter. ClickHouse applies the first entry that names a table, so the tenant's entries come
    first and the caller's others (tables outside the store) after them. A caller's key that is one of the
    statement's table aliases is refused: an alias would apply one table's tenant filter to another's rows."""
    for alias in aliases:
        if "." in alias or alias in (key for key, _ in caller):
            raise Refused(
                ACCESS_DENIED,
                f"with tenants on, the table alias {alias!r} cannot be named in {TABLE_FILTERS} (name the table)",
            )
    extra: list[tuple[str, str]] = []
    narrowed: dict[str, str] = {}
    for key, expr in caller:
        table = key if "." in key else f"{database}.{key}"
        if table in tenant:
            narrowed.setdefault(table, expr)  # the first entry naming a table is the one ClickHouse applies
        else:
            extra.append((key, expr))
    entries = [
        (table, f"({expr}) AND ({narrowed[table]})" if table in narrowed else expr) for table, expr in tenant.items()
    ]
    return entries + extra


def is_conjunction(ast: str, first: str) -> bool:
    """Whether `EXPLAIN AST SELECT <expression>` (ast) is an `and` whose first operand has the AST `first`
    (`EXPLAIN AST SELECT <that operand>`): a combined filter keeps every row the tenant's filter drops dropped."""
    lines, first_lines = ast.splitlines(), first.splitlines()
    if len(lines) < 6 or [line.strip() for line in lines[3:5]] != [
        "ExpressionList (children 1)",
        "Function and (children 1)",
    ]:
        return False
    operand = [line[2:] for line in lines[6 : 6 + len(first_lines) - 4]]
    return lines[5].strip().startswith("ExpressionList (children ") and operand == first_lines[4:]


def filters_setting(entries: Iterable[tuple[str, str]]) -> str:
    """The value of `additional_table_filters`: a Map literal."""
    return map_literal(list(entries))
