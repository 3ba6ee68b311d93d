"""One statement made ready to run under the guard, on its session (blocking): every setting of its SETTINGS
clauses checked, the tenant's `additional_table_filters` combined with a caller's (in the URL and in each
clause), and a tenant's reads checked column by column. The decisions are harborlight/sqlport/clickhouse_guard.py's;
this module asks the engine what they need (the formatter, EXPLAIN AST, EXPLAIN QUERY TREE, the store's tables)."""

import json
from collections.abc import Mapping

from harborlight.sqlport.clickhouse_errors import CODES, Refused
from harborlight.sqlport.clickhouse_guard import (
    TABLE_FILTERS,
    Bound,
    Statement,
    check_setting,
    check_tenant_columns,
    check_tenant_tables,
    combined_filters,
    filters_setting,
    is_conjunction,
    read_columns,
    read_tables,
    tenant_filters,
)
from harborlight.sqlport.clickhouse_settings import Unreadable, map_entries, replaced, set_assignments, settings_clauses
from harborlight.sqlport.sql_session import SqlSession, format_single_statement

_EXPLAIN_PREFIXES = (
    "EXPLAIN QUERY TREE ",
    "EXPLAIN PIPELINE ",
    "EXPLAIN SYNTAX ",
    "EXPLAIN PLAN ",
    "EXPLAIN AST ",
    "EXPLAIN ",
)
_TABLES = """
SELECT database, name, engine, partition_key FROM system.tables
WHERE database NOT IN ('system', 'information_schema', 'INFORMATION_SCHEMA') AND NOT is_temporary"""


def checked_clauses(
    session: SqlSession,
    canonical: str,
    ast: str,
    statement: Statement,
    bounds: Mapping[str, Bound],
    tenant: dict[str, str] | None,
    database: str,
) -> str:
    """The statement after checking every setting of its SETTINGS clauses; with tenants on, each clause's
    `additional_table_filters` (which replaces the request's within its query) combined with the tenant's."""
    try:
        clauses = settings_clauses(canonical)
    except Unreadable as exc:
        raise Refused(CODES["SYNTAX_ERROR"], f"cannot read the statement's SETTINGS clauses: {exc}") from None
    if len(clauses) != statement.settings_clauses:
        raise Refused(CODES["SYNTAX_ERROR"], "cannot read the statement's SETTINGS clauses")
    values: dict[int, str] = {}
    for assignment in (a for clause in clauses for a in clause):
        if assignment.name != TABLE_FILTERS:
            check_setting(assignment.name, assignment.literal, bounds)
        elif tenant is not None:
            entries = _entries(assignment.literal)
            values[assignment.start] = combined(session, tenant, entries, database, statement)
    if not values:
        return canonical
    rewritten = replaced(canonical, values)
    if session.run(f"EXPLAIN AST {rewritten}", "TabSeparatedRaw").body.decode() != ast:
        raise Refused(CODES["SYNTAX_ERROR"], "cannot combine the statement's additional_table_filters")
    return rewritten


def check_tenant_reads(
    session: SqlSession, canonical: str, statement: Statement, bound: Mapping[str, str], filters: Mapping[str, str]
) -> None:
    """A tenant's statement reads no column that counts other tenants' rows and no table whose parts may hold
    other tenants' rows (`filters`: the tenant's), by the analyzer's resolution of its tables and columns (an
    EXPLAIN is checked on the statement it explains: its analysis folds scalar subqueries)."""
    if statement.kind == "Explain":  # a tenant's EXPLAIN has no options (clickhouse_guard), only its kind
        inner = next(canonical[len(p) :] for p in _EXPLAIN_PREFIXES if canonical.startswith(p))
    elif statement.kind in ("SelectWithUnionQuery", "SelectIntersectExceptQuery"):
        inner = canonical
    else:
        return
    if not inner.startswith(("SELECT", "WITH", "(")):
        return
    if statement.output_format and inner.endswith(f" FORMAT {statement.output_format}"):  # the EXPLAIN's own output
        inner = inner[: -len(f" FORMAT {statement.output_format}")]
    tree = session.run(f"EXPLAIN QUERY TREE {inner}", "TabSeparatedRaw", bound).body.decode()
    check_tenant_tables(read_tables(tree), filters)
    check_tenant_columns(read_columns(tree))


def set_names(canonical: str) -> list[str]:
    """The settings a formatted SET statement names."""
    try:
        return [assignment.name for assignment in set_assignments(canonical)]
    except Unreadable as exc:
        raise Refused(CODES["SYNTAX_ERROR"], f"cannot read the SET statement: {exc}") from None


def _entries(literal: str) -> list[tuple[str, str]]:
    try:
        return map_entries(literal)
    except Unreadable as exc:
        raise Refused(CODES["BAD_ARGUMENTS"], f"cannot read additional_table_filters: {exc}") from None


def url_filter_entries(session: SqlSession, value: str) -> list[tuple[str, str]]:
    """The entries of an `additional_table_filters` URL value, read by the engine's formatter (which checks
    that it is one map literal) as ClickHouse reads a setting's value."""
    text = format_single_statement(session, f"SELECT 1 SETTINGS {TABLE_FILTERS} = {value}")
    clauses = settings_clauses(text) if text.startswith("SELECT 1 SETTINGS ") else []
    if len(clauses) != 1 or len(clauses[0]) != 1 or clauses[0][0].end != len(text):
        raise Refused(CODES["BAD_ARGUMENTS"], f"cannot read additional_table_filters {value!r} as one map")
    return _entries(clauses[0][0].literal)


def tenant_filters_of(session: SqlSession, tenant: str) -> dict[str, str]:
    """The tenant's filter for every table of the store, as the store lists its tables now."""
    tables = [json.loads(line) for line in session.run(_TABLES, "JSONCompactEachRow").body.splitlines()]
    return tenant_filters(tables, tenant)


def combined(
    session: SqlSession, tenant: dict[str, str], caller: list[tuple[str, str]], database: str, statement: Statement
) -> str:
    """The tenant's filters with the caller's, each combination proved by the engine's parser to be the tenant's
    filter AND the caller's (so no caller text can reach outside its parentheses)."""
    entries = combined_filters(tenant, caller, database, statement.table_aliases)
    for table, expr in entries:
        if table in tenant and expr != tenant[table]:
            combined = session.run(f"EXPLAIN AST SELECT {expr}", "TabSeparatedRaw").body.decode()
            own = session.run(f"EXPLAIN AST SELECT {tenant[table]}", "TabSeparatedRaw").body.decode()
            if not is_conjunction(combined, own):
                raise Refused(
                    CODES["BAD_ARGUMENTS"], f"the additional_table_filters entry for {table} is not one expression"
                )
    return filters_setting(entries)
