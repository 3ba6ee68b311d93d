"""A caller's `additional_table_filters` (how Grafana's ad hoc filters reach ClickHouse) and restricting settings:
accepted in the URL and in the statement's SETTINGS clauses, combined with the tenant filter, never widening it."""

import httpx
import pytest

from tests.clickhouse_http.conftest import OPERATOR


def count(port: int, sql: str, token: str = "ch-acme", **params) -> httpx.Response:
    return httpx.post(f"http://127.0.0.1:{port}/", params=params, content=sql.encode(), auth=("default", token))


def spans_of(port: int, service: str, token: str = "ch-acme", clause: str = "", **params) -> str:
    answer = count(port, f"SELECT count() FROM otel_traces WHERE ServiceName = '{service}' {clause}", token, **params)
    assert answer.status_code == 200, answer.text
    return answer.text.strip()


def test_a_filter_narrows_the_callers_rows(ch_port, tenants_data):
    own = tenants_data["acme"]
    assert spans_of(ch_port, own) == "3"
    in_url = {"additional_table_filters": "{'otel_traces': 'SpanName = ''no such span'''}"}
    assert spans_of(ch_port, own, **in_url) == "0"
    # the plugin's ad hoc filter: appended to the statement, the bare table name as the key
    assert (
        spans_of(ch_port, own, clause="settings additional_table_filters={'otel_traces' : ' SpanName = ''x'' '}") == "0"
    )
    assert (
        spans_of(
            ch_port,
            own,
            clause=f"SETTINGS additional_table_filters={{'default.otel_traces': 'ServiceName = ''{own}'''}}",
        )
        == "3"
    )


@pytest.mark.parametrize(
    "filters",
    [
        "{}",
        "{'otel_traces': '1'}",
        "{'default.otel_traces': '1 OR 1'}",
        "{'otel_traces': 'ResourceAttributes[''harborlight.tenant''] = ''globex'''}",
        "{'x': '1', 'otel_traces': '1', 'otel_traces': '0'}",
    ],
)
def test_no_filter_widens_what_a_tenant_sees(ch_port, tenants_data, filters):
    other = tenants_data["globex"]
    assert spans_of(ch_port, other, additional_table_filters=filters) == "0"
    assert spans_of(ch_port, other, clause=f"SETTINGS additional_table_filters = {filters}") == "0"
    nested = count(
        ch_port,
        f"SELECT count() FROM (SELECT * FROM otel_traces SETTINGS additional_table_filters = "
        f"{filters}) WHERE ServiceName = '{other}'",
    )
    assert nested.status_code == 200 and nested.text == "0\n"
    assert spans_of(ch_port, other, OPERATOR) == "3"  # the rows are there


@pytest.mark.parametrize(
    "filters,code",
    [
        ("{'otel_traces': '1) OR (1'}", "36"),  # text that would leave its parentheses
        ("{'otel_traces': '1 -- '}", "62"),  # the engine's parser refuses the combination
        ("{'t': '1'}", "497"),  # a table alias of the statement
    ],
)
def test_a_filter_that_is_not_one_expression_or_names_an_alias_is_refused(ch_port, tenants_data, filters, code):
    answer = count(ch_port, f"SELECT count() FROM otel_traces AS t SETTINGS additional_table_filters = {filters}")
    assert answer.headers["x-clickhouse-exception-code"] == code, answer.text


def test_an_alias_cannot_borrow_another_tables_filter(ch_port, tenants_data):
    sql = "SELECT count() FROM otel_traces AS `default.otel_traces_trace_id_ts`"
    assert count(ch_port, sql).headers["x-clickhouse-exception-code"] == "497"


def test_restricting_settings_are_accepted_and_lifting_ones_refused(ch_port, tenants_data):
    restricting = count(
        ch_port,
        "SELECT getSetting('max_execution_time'), getSetting('max_result_rows') "
        "SETTINGS max_execution_time = 10, max_result_rows = 100",
        max_rows_to_read="1000",
    )
    assert restricting.text == "10\t100\n"
    default = count(ch_port, "SELECT getSetting('max_execution_time')")
    assert default.text == "300\n"  # the interface's own limit
    for sql, params, code, text in (
        ("SELECT 1 SETTINGS max_execution_time = 0", {}, "452", "Setting max_execution_time shouldn't be less than 1"),
        ("SELECT 1", {"max_execution_time": "100000"}, "452", "shouldn't be greater than 300"),
        ("SELECT 1 SETTINGS readonly = 0", {}, "164", "Cannot modify 'readonly' setting in readonly mode"),
    ):
        answer = count(ch_port, sql, **params)
        assert answer.headers["x-clickhouse-exception-code"] == code and text in answer.text, answer.text


def test_without_tenants_the_callers_filter_applies_as_it_is(ch_port, tenants_data):
    own = tenants_data["acme"]
    assert spans_of(ch_port, own, OPERATOR) == "3"
    assert spans_of(ch_port, own, OPERATOR, additional_table_filters="{'otel_traces': 'SpanName = ''x'''}") == "0"
    assert spans_of(ch_port, own, OPERATOR, clause="SETTINGS additional_table_filters={'otel_traces': '0'}") == "0"
