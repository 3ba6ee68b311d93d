"""Every query the shipped dashboards hold (panel targets and the queries of internal data links) is a query of
grafana-clickhouse-datasource's own model, as its source declares it (release 4.20.0; src/types/sql.ts CHSqlQuery,
src/types/queryBuilder.ts QueryType, src/data/utils.ts mapQueryTypeToGrafanaFormat, src/data/migration.ts): so the
editor opens it as it is, never migrating it as a v3 query, and the backend shapes its frames by the right format."""

import pytest

from tests.grafana.conftest import DASHBOARDS, load

PLUGIN = "grafana-clickhouse-datasource"
QUERY_TYPES = {"table", "logs", "timeseries", "traces"}  # enum QueryType
FORMAT_OF = {"table": 1, "logs": 2, "timeseries": 0, "traces": 3}  # mapQueryTypeToGrafanaFormat
# CHSqlQuery: DataQuery's fields, CHQueryBase's, then its own
REQUIRED = {"refId": str, "pluginVersion": str, "editorType": str, "rawSql": str}
OPTIONAL = {
    "datasource": dict,
    "hide": bool,
    "key": str,
    "queryType": str,
    "format": int,
    "meta": dict,
    "expand": bool,
    "datasourceId": int,
}


def _version(text: str) -> tuple[int, ...]:
    return tuple(int(part) for part in text.split("."))


def queries() -> list[tuple[str, str, dict]]:
    found = []
    for path in DASHBOARDS:
        for panel in load(path.name)["panels"]:
            for target in panel.get("targets", []):
                found.append((path.name, panel["title"], target))
            for override in panel.get("fieldConfig", {}).get("overrides", []):
                for prop in override["properties"]:
                    for data_link in prop["value"] if prop["id"] == "links" else []:
                        if "internal" in data_link:
                            query = {"refId": "link", **data_link["internal"]["query"]}
                            found.append((path.name, f"{panel['title']}: {data_link['title']}", query))
    return found


QUERIES = queries()


def test_the_dashboards_hold_queries():
    assert len(QUERIES) > 20 and any(q["queryType"] == "timeseries" for _, _, q in QUERIES)


@pytest.mark.parametrize("dashboard,where,query", QUERIES, ids=[f"{d}:{w}" for d, w, _ in QUERIES])
def test_every_query_is_one_of_the_plugins_model(dashboard, where, query):
    for name, kind in REQUIRED.items():
        assert isinstance(query.get(name), kind), f"{name} is a {kind.__name__}"
    unknown = set(query) - set(REQUIRED) - set(OPTIONAL)
    assert not unknown, f"not fields of the plugin's CHSqlQuery: {unknown}"
    for name, kind in OPTIONAL.items():
        assert name not in query or isinstance(query[name], kind), f"{name} is a {kind.__name__}"
    assert query["editorType"] == "sql" and query["rawSql"].strip()
    assert _version(query["pluginVersion"]) >= (4, 0, 0)  # else migrateCHQuery rewrites it as a v3 query
    assert query.get("queryType") in QUERY_TYPES
    assert query["format"] == FORMAT_OF[query["queryType"]]
    if "datasource" in query:
        assert query["datasource"] == {"type": PLUGIN, "uid": "harborlight"}
