"""The plugin's own statements (tests/grafana/plugin_statements.py, from grafana-clickhouse-datasource's source)
through the client that decodes as its driver does: the schema and metadata queries, the OTel trace search,
the trace-id lookup of release 4.20.0 and of main (tags and service tags as Array(Map), events as logs, links
as references), the logs list, the log volume and ad hoc filters; with tenants on (each tenant sees its own
trace only, whatever filter it adds) and off."""

import pytest

from tests.grafana.macros import expand
from tests.grafana.plugin_statements import (
    LOG_VOLUME,
    LOGS_LIST,
    METADATA,
    TRACE_ID_LOOKUP_4_20,
    TRACE_ID_LOOKUP_MAIN,
    TRACE_SEARCH,
    ad_hoc,
    ad_hoc_filter,
)


def run(connection, sql: str, time_range):
    return connection.query(expand(sql, {}, time_range))


@pytest.mark.parametrize("name", METADATA)
def test_schema_and_metadata_queries_answer(plugin_tenants, name):
    result = run(plugin_tenants.connections["acme"], METADATA[name], plugin_tenants.time_range)
    first = [row[0] for row in result.rows]
    expected = {
        "databases": "default",
        "tables": "otel_traces_trace_id_ts",
        "describe": "TraceId",
        "map keys (OTel table, last 6 hours)": "service.name",
        "map keys (sampled rows)": "gen_ai.request.model",
        "map values": plugin_tenants.traces["acme"].service,
        "columns of a table": "SeverityText",
        "columns for ad hoc keys": "ResourceAttributes",
        "functions": "multiSearchAny",
        "backend tables": "default",
        "current database": "default",
        "backend columns": "default",
        "backend distinct values": "ServiceName",
    }
    if name == "version":
        assert first[0].count(".") >= 2
    else:
        assert expected[name] in first, first[:20]
    if name == "map values":  # a tenant's probes see its own values only
        assert plugin_tenants.traces["globex"].service not in first
    if name == "backend distinct values":
        values = {row[1] for row in result.rows}
        assert plugin_tenants.traces["acme"].service in values and plugin_tenants.traces["globex"].service not in values


@pytest.mark.parametrize("tenant", ["acme", "globex"])
def test_trace_search_lists_the_tenants_root_span_with_its_duration_in_ms(plugin_tenants, tenant):
    result = run(plugin_tenants.connections[tenant], TRACE_SEARCH, plugin_tenants.time_range)
    assert result.columns == ["traceID", "serviceName", "operationName", "startTime", "duration"]
    rows = [r for r in result.dicts() if r["serviceName"].startswith("plugin-")]
    assert [(r["traceID"], r["operationName"]) for r in rows] == [(plugin_tenants.traces[tenant].trace_id, "agent.run")]
    assert 1 < rows[0]["duration"] < 10_000  # milliseconds: multiply("Duration", 0.000001) of nanoseconds


@pytest.mark.parametrize("lookup", [TRACE_ID_LOOKUP_4_20, TRACE_ID_LOOKUP_MAIN], ids=["4.20.0", "main"])
def test_trace_id_lookup_shows_spans_tags_events_and_links(plugin_tenants, lookup):
    own = plugin_tenants.traces["acme"]
    sql = lookup.replace("__TRACE_ID__", own.trace_id)
    result = run(plugin_tenants.connections["acme"], sql, plugin_tenants.time_range)
    assert result.types[result.columns.index("tags")] == "Array(Map(String, String))"
    spans = {r["operationName"]: r for r in result.dicts()}
    assert set(spans) == {"agent.run", "tool.bash"}
    assert {"key": "gen_ai.request.model", "value": "claude-sonnet-4"} in spans["agent.run"]["tags"]
    assert {"key": "service.name", "value": own.service} in spans["agent.run"]["serviceTags"]
    (event,) = spans["tool.bash"]["logs"]
    assert event[0] == "tool.output" and {"key": "exit_code", "value": "0"} in event[2]
    (link,) = spans["tool.bash"]["references"]
    assert link[0] == own.linked_trace_id and {"key": "link.kind", "value": "retry"} in link[2]
    assert spans["tool.bash"]["parentSpanID"] == spans["agent.run"]["spanID"]
    other = run(plugin_tenants.connections["globex"], sql, plugin_tenants.time_range)
    assert other.rows == []  # another tenant's trace id finds nothing


def test_logs_list_shows_the_tenants_records_with_their_trace(plugin_tenants):
    own = plugin_tenants.traces["acme"]
    result = run(plugin_tenants.connections["acme"], LOGS_LIST, plugin_tenants.time_range)
    assert result.columns[:4] == ["timestamp", "body", "level", "traceID"]
    records = {r["body"]: r for r in result.dicts()}
    assert set(records) == {f"error from {own.service}", f"info from {own.service}"}
    assert {r["traceID"] for r in records.values()} == {own.trace_id}
    assert records[f"error from {own.service}"]["ResourceAttributes"]["service.name"] == own.service


def test_log_volume_counts_each_level(plugin_tenants):
    result = run(plugin_tenants.connections["acme"], LOG_VOLUME, plugin_tenants.time_range)
    assert result.columns == ["time", "critical", "error", "warn", "info", "debug", "trace", "unknown"]
    totals = {level: sum(r[level] for r in result.dicts()) for level in result.columns[1:]}
    assert totals == {"critical": 0, "error": 1, "warn": 0, "info": 1, "debug": 0, "trace": 0, "unknown": 0}


@pytest.mark.parametrize("statement,table", [(LOGS_LIST, "otel_logs"), (TRACE_SEARCH, "otel_traces")])
def test_ad_hoc_filters_narrow_and_never_widen(plugin_tenants, statement, table):
    acme, globex = plugin_tenants.traces["acme"], plugin_tenants.traces["globex"]
    connection, time_range = plugin_tenants.connections["acme"], plugin_tenants.time_range
    unfiltered = len(run(connection, statement, time_range).rows)
    own = run(connection, ad_hoc(statement, table, ad_hoc_filter("ServiceName", "=", acme.service)), time_range)
    assert len(own.rows) == unfiltered > 0
    by_map_key = ad_hoc_filter("ResourceAttributes.deployment.environment", "=", "test")
    assert len(run(connection, ad_hoc(statement, table, by_map_key), time_range).rows) == unfiltered
    for widening in (ad_hoc_filter("ServiceName", "=", globex.service), " 1 OR 1 ", " ServiceName != \\'\\' "):
        rows = run(connection, ad_hoc(statement, table, widening), time_range).dicts()
        assert all(globex.service not in str(r) for r in rows) and len(rows) <= unfiltered


def test_without_tenants_an_ad_hoc_filter_picks_one_service(grafana, plugin_tenants):
    acme = plugin_tenants.traces["acme"]
    everyone = run(grafana.client, LOGS_LIST, plugin_tenants.time_range)
    services = {r["ResourceAttributes"]["service.name"] for r in everyone.dicts()}
    assert {acme.service, plugin_tenants.traces["globex"].service} <= services
    one = run(
        grafana.client,
        ad_hoc(LOGS_LIST, "otel_logs", ad_hoc_filter("ServiceName", "=", acme.service)),
        plugin_tenants.time_range,
    )
    assert {r["ResourceAttributes"]["service.name"] for r in one.dicts()} == {acme.service}
