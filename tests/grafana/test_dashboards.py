"""Every panel of every dashboard, run as Grafana runs it, returns the columns it plots and some rows."""

import importlib.util
import sys

import pytest

from tests.grafana.conftest import DASHBOARDS, GRAFANA, JOB_RANGE, load, plotted_columns, sql_panels

PANELS = [(path.name, panel["title"]) for path in DASHBOARDS for panel in sql_panels(load(path.name))]


def variables_for(name: str, grafana, job) -> dict:
    if name == "harborlight-jobs.json":
        return {"job": [job.job]}
    if name == "harborlight-trial.json":
        chosen = {"job": job.job, "trial": job.resolved}
        return {**chosen, "trace": grafana.variable(name, "trace", chosen)[0]}
    return {"job": job.job}


def test_the_dashboards_are_what_build_py_writes():
    spec = importlib.util.spec_from_file_location("grafana_build", GRAFANA / "build.py")
    build = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = build  # its dataclasses look their module up
    spec.loader.exec_module(build)
    written = build.render()
    assert sorted(written) == [p.name for p in DASHBOARDS]
    stale = [name for name, text in written.items() if (GRAFANA / "dashboards" / name).read_text() != text]
    assert not stale, f"run `python deploy/grafana/build.py`: {stale} differ from the SQL in deploy/grafana/sql"


def test_dashboards_have_unique_uids_and_link_to_each_other():
    dashboards = [load(p.name) for p in DASHBOARDS]
    uids = {d["uid"] for d in dashboards}
    assert len(uids) == len(dashboards) == 4
    for d in dashboards:
        for panel in d["panels"]:
            for override in panel.get("fieldConfig", {}).get("overrides", []):
                for prop in override["properties"]:
                    for link in prop["value"] if prop["id"] == "links" else []:
                        if link["url"]:
                            assert link["url"].split("/")[2] in uids, link["url"]
                        else:
                            assert link["internal"]["datasourceUid"] == "harborlight"


@pytest.mark.parametrize(("name", "title"), PANELS, ids=[f"{n[12:-5]}:{t}" for n, t in PANELS])
def test_every_panel_returns_the_columns_it_plots(grafana, job, recent, name, title):
    if name == "harborlight-ingest.json":
        result = grafana.panel(name, title, {}, recent.time_range)
    else:
        result = grafana.panel(name, title, variables_for(name, grafana, job), JOB_RANGE)
    panel = next(p for p in sql_panels(load(name)) if p["title"] == title)
    assert result.columns == plotted_columns(panel)
    assert result.rows, f"{title}: no rows"
    # every column has a value in some row (a column that is always NULL plots nothing)
    empty = [c for i, c in enumerate(result.columns) if all(r[i] is None for r in result.rows)]
    allowed_empty = {"reasoning_tokens", "error", "exception"}  # the streamed job has no reasoning or failed calls
    assert set(empty) <= allowed_empty, f"{title}: always NULL: {empty}"


def test_variable_queries_offer_the_streamed_job_its_trials_and_traces(grafana, job):
    assert job.job in grafana.variable("harborlight-jobs.json", "job", {})
    trials = grafana.variable("harborlight-trial.json", "trial", {"job": job.job})
    assert trials == sorted([job.resolved, job.failed, job.infra, job.limited, job.running])
    traces = grafana.variable("harborlight-trial.json", "trace", {"job": job.job, "trial": job.resolved})
    assert len(traces) == 2  # the harness's trace and the agent's


def test_the_trace_panel_shows_span_events_and_links(grafana, plugin_tenants):
    traced = plugin_tenants.traces["acme"]
    result = grafana.panel(
        "harborlight-trial.json", "Trace view ($trace)", {"trace": traced.trace_id}, plugin_tenants.time_range
    )
    spans = {r["operationName"]: r for r in result.dicts()}
    (event,) = spans["tool.bash"]["logs"]
    assert event[0] == "tool.output" and {"key": "stream", "value": "stdout"} in event[2]
    (link,) = spans["tool.bash"]["references"]
    assert link[0] == traced.linked_trace_id and {"key": "link.kind", "value": "retry"} in link[2]
    assert spans["agent.run"]["logs"] == [] and spans["agent.run"]["references"] == []
