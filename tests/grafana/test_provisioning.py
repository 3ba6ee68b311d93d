"""The provisioning files give Grafana a ClickHouse data source on harborlight's HTTP interface, with the
OTel trace and log views on over tables the store has, and load the dashboards from where compose mounts them."""

import string

import pytest

from tests.grafana.conftest import DASHBOARDS, GRAFANA, load

yaml = pytest.importorskip("yaml")


def grafana_expand(text: str, env: dict[str, str]) -> str:
    """Grafana expands $VAR / ${VAR} in provisioning files (os.ExpandEnv: unset is empty)."""
    values = "\n".join(line for line in text.splitlines() if not line.lstrip().startswith("#"))
    return string.Template(values).substitute({k: env.get(k, "") for k in _names(text)})


def _names(text: str) -> set[str]:
    """The variables the file's values use (comments left out)."""
    values = "\n".join(line for line in text.splitlines() if not line.lstrip().startswith("#"))
    return {
        m.group("braced") or m.group("named")
        for m in string.Template.pattern.finditer(values)
        if m.group("braced") or m.group("named")
    }


def test_the_data_source_reads_harborlights_interface_with_the_token():
    env = {
        "HARBORLIGHT_CLICKHOUSE_HOST": "127.0.0.1",
        "HARBORLIGHT_CLICKHOUSE_HTTP_PORT": "8123",
        "HARBORLIGHT_TOKEN": "s3cret",
    }
    text = (GRAFANA / "provisioning" / "datasources" / "harborlight.yaml").read_text()
    (source,) = yaml.safe_load(grafana_expand(text, env))["datasources"]
    assert source["type"] == "grafana-clickhouse-datasource" and source["uid"] == "harborlight"
    data = source["jsonData"]
    assert (data["host"], int(data["port"]), data["protocol"], data["defaultDatabase"]) == (
        "127.0.0.1",
        8123,
        "http",
        "default",
    )
    assert source["secureJsonData"]["password"] == "s3cret"
    # the plugin's OTel version for new queries: `otelEnabled ? otelVersion : undefined` (src/data/CHDatasource.ts)
    # "Show context" needs a context column the log line has ("Unable to match any log context columns" else)
    assert data["logs"] == {
        "defaultDatabase": "default",
        "defaultTable": "otel_logs",
        "otelEnabled": True,
        "otelVersion": "latest",
        "selectContextColumns": True,
        "contextColumns": ["ServiceName", "ResourceAttributes['harbor.trial.name']"],
    }
    assert data["traces"] == {
        "defaultDatabase": "default",
        "defaultTable": "otel_traces",
        "otelEnabled": True,
        "otelVersion": "latest",
        "durationUnit": "nanoseconds",
    }


def test_compose_supplies_the_variables_with_defaults_for_a_local_harborlight():
    compose = yaml.safe_load((GRAFANA / "docker-compose.yaml").read_text())["services"]["grafana"]
    needed = _names((GRAFANA / "provisioning" / "datasources" / "harborlight.yaml").read_text())
    assert needed <= set(compose["environment"])
    assert compose["environment"]["HARBORLIGHT_CLICKHOUSE_HTTP_PORT"].endswith(":-8123}")
    provider = yaml.safe_load((GRAFANA / "provisioning" / "dashboards" / "harborlight.yaml").read_text())
    path = provider["providers"][0]["options"]["path"]
    assert f"./dashboards:{path}:ro" in compose["volumes"]


def test_the_otel_tables_grafana_expects_exist(server):
    tables = {r[0] for r in server.sql("SHOW TABLES")}
    assert {"otel_traces", "otel_logs", "otel_traces_trace_id_ts"} <= tables
    companion = {r[0] for r in server.sql("SELECT name FROM system.columns WHERE table = 'otel_traces_trace_id_ts'")}
    assert {"TraceId", "Start", "End"} <= companion  # else the plugin falls back to a slow trace lookup


def test_every_panel_and_variable_uses_the_provisioned_data_source():
    for path in DASHBOARDS:
        dashboard = load(path.name)
        for panel in dashboard["panels"]:
            for target in panel.get("targets", []):
                assert target["datasource"]["uid"] == "harborlight" and target["editorType"] == "sql"
        for variable in dashboard["templating"]["list"]:
            if variable["type"] == "query":
                assert variable["datasource"]["uid"] == "harborlight"


def test_dashboard_descriptions_say_a_trial_is_its_stored_row():
    """The panels read the trial rows the API answers (trial_rows), not an approximation of its rules."""
    for name in ("harborlight-jobs.json", "harborlight-job.json", "harborlight-trial.json"):
        text = load(name)["description"]
        assert "stored row" in text and "GET /api/trials/{trial}" in text and "pproximat" not in text
