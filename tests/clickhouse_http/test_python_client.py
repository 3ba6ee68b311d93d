"""The ClickHouse HTTP interface through clickhouse-connect, the Python client Grafana users script with."""

import clickhouse_connect
import pytest
from clickhouse_connect.driver.exceptions import DatabaseError

from tests.clickhouse_http.conftest import OPERATOR


def client(port: int, token: str, **kwargs):
    return clickhouse_connect.get_client(host="127.0.0.1", port=port, username="grafana", password=token, **kwargs)


def test_a_tenant_reads_its_own_spans_and_nothing_else(ch_port, tenants_data):
    acme = client(ch_port, "ch-acme")
    rows = acme.query("SELECT DISTINCT ServiceName FROM otel_traces WHERE ServiceName IN {s:Array(String)}",
                      parameters={"s": list(tenants_data.values())}).result_rows
    assert rows == [(tenants_data["acme"],)]
    assert acme.query("SELECT count() FROM otel_logs WHERE ServiceName = {s:String}",
                      parameters={"s": tenants_data["globex"]}).result_rows == [(0,)]
    operator = client(ch_port, OPERATOR)
    assert operator.query("SELECT count(DISTINCT ServiceName) FROM otel_traces WHERE ServiceName IN {s:Array(String)}",
                          parameters={"s": list(tenants_data.values())}).result_rows == [(2,)]
