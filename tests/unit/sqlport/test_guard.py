"""The guard's pure decisions: which statements, settings and tables a caller gets."""

import pytest

from harborlight.sqlport.clickhouse_guard import (
    Bound,
    Refused,
    check,
    check_setting,
    check_tenant_columns,
    check_tenant_tables,
    read_columns,
    tenant_filters,
    url_settings,
)

SELECT_FILE_AST = """SelectWithUnionQuery (children 1)
 ExpressionList (children 1)
  SelectQuery (children 2)
   ExpressionList (children 1)
    Asterisk
   TablesInSelectQuery (children 1)
    TablesInSelectQueryElement (children 1)
     TableExpression (children 1)
      Function file (children 1)
       ExpressionList (children 1)
        Literal '/etc/passwd'
"""
SELECT_FORMAT_AST = """SelectWithUnionQuery (children 2)
 ExpressionList (children 1)
  SelectQuery (children 1)
   ExpressionList (children 1)
    Literal UInt64_1
 Identifier JSON
"""


def test_a_table_function_outside_the_safe_list_is_refused_and_a_format_clause_is_read():
    with pytest.raises(Refused) as refused:
        check(SELECT_FILE_AST, ["file", "numbers"], "default")
    assert refused.value.code == 497
    assert check(SELECT_FORMAT_AST, ["file"], "default", "SELECT 1 FORMAT JSON").output_format == "JSON"
    show_tables = "ShowTables (children 1)\n Identifier JSON\n"
    assert check(show_tables, [], "default", "SHOW TABLES FROM JSON").output_format is None  # a database named JSON
    with pytest.raises(Refused):
        check("KillQueryQuery Literal_UInt64_1 ASYNC (children 1)\n Literal UInt64_1\n", [], "default")


def test_guard_lifting_settings_are_refused_and_a_clients_readonly_is_dropped():
    assert url_settings(
        {"max_threads": "2", "readonly": "2", "query": "SELECT 1", "param_x": "1", "client_protocol_version": "54460"}
    ) == {"max_threads": "2"}
    for name in ("readonly", "dialect", "use_query_cache", "format_schema"):
        with pytest.raises(Refused) as refused:
            check_setting(name, "1", {})
        assert refused.value.code == 164 and str(refused.value) == f"Cannot modify '{name}' setting in readonly mode"


def test_a_capped_limit_may_be_lowered_but_not_lifted():
    caps = {"max_execution_time": Bound.cap(300)}
    check_setting("max_execution_time", "10", caps)
    check_setting("max_execution_time", "'300'", caps)
    check_setting("max_result_rows", "0", caps)  # not capped: 0 is the engine's own default
    for value, message in (("301", "shouldn't be greater than 300"), ("0", "shouldn't be less than 1")):
        with pytest.raises(Refused) as refused:
            check_setting("max_execution_time", value, caps)
        assert refused.value.code == 452 and str(refused.value) == f"Setting max_execution_time {message}"


def test_a_floor_may_be_raised_but_not_lowered():
    """ClickHouse's `priority`: a larger number waits for smaller ones, and 0 takes no part in priorities."""
    floors = {"priority": Bound(2, low=2)}
    check_setting("priority", "2", floors)
    check_setting("priority", "9", floors)
    for value in ("1", "0"):
        with pytest.raises(Refused) as refused:
            check_setting("priority", value, floors)
        assert refused.value.code == 452 and str(refused.value) == "Setting priority shouldn't be less than 2"


def test_a_table_whose_parts_are_each_one_tenants_gets_its_filter_and_every_other_keeps_no_rows():
    raw = "(ResourceAttributes['harborlight.tenant'], toDate(Timestamp))"
    tables = [
        ("default", "otel_traces", "MergeTree", raw),
        ("default", "agent_events", "MergeTree", "(Tenant, toDate(Timestamp))"),
        ("default", "trial_rows", "ReplacingMergeTree", "Tenant"),
        ("default", "old_traces", "MergeTree", "toDate(Timestamp)"),  # a store from before: shared parts
        ("default", "agent_events_traces_mv", "MaterializedView", ""),
        ("default", "harborlight_ingested_requests", "ReplacingMergeTree", ""),
        ("c", "otel_logs", "Distributed", ""),
        ("c", "otel_logs_local", "MergeTree", raw),
    ]
    filters = tenant_filters(tables, "acme")
    assert filters["default.otel_traces"] == "ResourceAttributes['harborlight.tenant'] = 'acme'"
    assert filters["default.agent_events"] == filters["default.trial_rows"] == "Tenant = 'acme'"
    assert filters["c.otel_logs"] == filters["c.otel_logs_local"] == filters["default.otel_traces"]
    for table in ("old_traces", "agent_events_traces_mv", "harborlight_ingested_requests"):
        assert filters[f"default.{table}"] == "0"
        with pytest.raises(Refused) as refused:
            check_tenant_tables({"system.one", f"default.{table}"}, filters)
        assert refused.value.code == 497
    check_tenant_tables({"system.tables", "default.otel_traces", "default.no_such_table"}, filters)
    assert filters["system.query_log"] == "0"


QUERY_TREE = """QUERY id: 0
  PROJECTION
    LIST id: 1, nodes: 2
      COLUMN id: 2, column_name: name, result_type: String, source_id: 3
      COLUMN id: 4, column_name: r, result_type: Nullable(UInt64), source_id: 5
  JOIN TREE
    TABLE id: 3, alias: __table1, table_name: system.tables
    QUERY id: 5, alias: __table2, is_subquery: 1
      PROJECTION
        LIST id: 6, nodes: 1
          COLUMN id: 7, column_name: total_rows, result_type: Nullable(UInt64), source_id: 8
      JOIN TREE
        TABLE id: 8, alias: __table3, table_name: system.tables
"""


def test_a_tenants_columns_are_read_from_the_query_tree_and_counts_refused():
    columns = read_columns(QUERY_TREE)
    assert columns == {("system.tables", "name"), ("system.tables", "total_rows")}
    with pytest.raises(Refused) as refused:
        check_tenant_columns(columns)
    assert refused.value.code == 497 and "system.tables.total_rows" in str(refused.value)
    check_tenant_columns({("system.tables", "name"), ("default.otel_traces", "TraceId")})
    with pytest.raises(Refused):
        check_tenant_columns({("default.otel_traces", "_part_offset")})
