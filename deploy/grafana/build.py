"""Writes deploy/grafana/dashboards/*.json from the panel SQL in deploy/grafana/sql/.

The SQL lives in .sql files so it stays readable. A panel about trials or jobs is a plain SELECT over the
stored trial rows or job rows (trial_rows, job_rows: the API's rows, derived by harborlight/read/derive/), with
`{{infra_outcomes}}` replaced by the API's set of infrastructure outcomes (harborlight/read/derive/outcomes.py). A
panel that lists or counts calls or events is a plain SELECT over the resolved events (resolved_events, the rows
/api/spans and the trial behaviour read: each call told twice listed once, its facts filled from its twin, named
after its trial; harborlight/read/statements/resolved_sql.py), `{{kind_counts}}` a count per kind
(harborlight/agent/rules.py KINDS). Run from the repository root after editing: `python deploy/grafana/build.py`
(tests/grafana checks that the committed JSON is what this writes).
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent.parent))

from harborlight.agent.rules import KINDS  # noqa: E402
from harborlight.read.derive.outcomes import INFRA_OUTCOMES  # noqa: E402

SQL = HERE / "sql"
OUT = HERE / "dashboards"
DATASOURCE = {"type": "grafana-clickhouse-datasource", "uid": "harborlight"}
# (format, queryType) of a target: the plugin's QueryType values (src/types/queryBuilder.ts) and the format each one
# maps to (mapQueryTypeToGrafanaFormat, src/data/utils.ts)
FORMATS = {"timeseries": (0, "timeseries"), "table": (1, "table"), "traces": (3, "traces")}
# A target without pluginVersion is a v3 query to the plugin's editor, which rewrites it on edit (migrateCHQuery,
# src/data/migration.ts); the version the dashboards are written for (tests/grafana check the targets against its
# query model).
PLUGIN_VERSION = "4.20.0"
NOTE = (
    "A trial's figures are its stored row, the one GET /api/trials/{trial} answers, and a job's the one "
    "GET /api/jobs/{job} answers; a trial or a job belongs to the time range when its first event does."
)
OUTCOME_SETS = {"infra_outcomes": INFRA_OUTCOMES}


@dataclass
class Panel:
    title: str
    sql: str  # file name in sql/
    columns: list[str]  # what the panel plots, in order (an "organize" transformation)
    kind: str = "table"  # Grafana panel type
    width: int = 12
    height: int = 8
    units: dict[str, str] = field(default_factory=dict)
    links: dict[str, dict] = field(default_factory=dict)  # column -> data link

    def query_format(self) -> tuple[int, str]:
        if self.kind == "timeseries":
            return FORMATS["timeseries"]
        return FORMATS["traces"] if self.kind == "traces" else FORMATS["table"]


def panel_sql(name: str) -> str:
    text = (SQL / name).read_text()
    for name, outcomes in OUTCOME_SETS.items():
        text = text.replace(f"{{{{{name}}}}}", ", ".join(f"'{o.value}'" for o in sorted(outcomes)))
    text = text.replace("{{kind_counts}}", ",\n    ".join(f"countIf(Kind = '{k}') AS {k}" for k in KINDS)).strip()
    if "{{" in text:
        raise ValueError(f"sql/{name}: a placeholder build.py does not know: {text[text.index('{{') :][:40]!r}")
    return text


def description(name: str) -> str:
    """The leading comment of the panel's SQL file."""
    comment = []
    for line in (SQL / name).read_text().splitlines():
        if not line.startswith("--"):
            break
        comment.append(line[2:].strip())
    return " ".join(comment)


def link(title: str, url: str) -> dict:
    return {"title": title, "url": url}


def explore_trace_link() -> dict:
    sql = panel_sql("trial_trace.sql").replace("${trace:sqlstring}", "'${__value.raw}'")
    return {
        "title": "Open the trace view",
        "url": "",
        "internal": {
            "datasourceUid": DATASOURCE["uid"],
            "datasourceName": "harborlight",
            "query": {
                "pluginVersion": PLUGIN_VERSION,
                "editorType": "sql",
                "queryType": "traces",
                "format": 3,
                "rawSql": sql,
            },
        },
    }


def panel_json(panel: Panel, index: int, pos: dict) -> dict:
    fmt, query_type = panel.query_format()
    overrides = [
        {"matcher": {"id": "byName", "options": col}, "properties": [{"id": "unit", "value": unit}]}
        for col, unit in panel.units.items()
    ]
    overrides += [
        {"matcher": {"id": "byName", "options": col}, "properties": [{"id": "links", "value": [data_link]}]}
        for col, data_link in panel.links.items()
    ]
    body = {
        "id": index,
        "type": panel.kind,
        "title": panel.title,
        "description": description(panel.sql),
        "datasource": DATASOURCE,
        "gridPos": pos,
        "targets": [
            {
                "refId": "A",
                "datasource": DATASOURCE,
                "pluginVersion": PLUGIN_VERSION,
                "editorType": "sql",
                "queryType": query_type,
                "format": fmt,
                "rawSql": panel_sql(panel.sql),
            }
        ],
        "fieldConfig": {"defaults": {}, "overrides": overrides},
        "transformations": [
            {"id": "organize", "options": {"indexByName": {col: i for i, col in enumerate(panel.columns)}}}
        ],
        "options": {},
    }
    if panel.kind == "stat":
        body["options"] = {
            "reduceOptions": {"values": False, "calcs": ["lastNotNull"], "fields": "/.*/"},
            "textMode": "value_and_name",
            "colorMode": "none",
        }
    if panel.kind == "timeseries":
        body["fieldConfig"]["defaults"] = {
            "custom": {"drawStyle": "bars", "stacking": {"mode": "normal"}, "fillOpacity": 80}
        }
    if panel.kind == "barchart":
        body["options"] = {"xField": panel.columns[0], "orientation": "horizontal"}
    return body


def text_panel(index: int, title: str, content: str, pos: dict) -> dict:
    return {
        "id": index,
        "type": "text",
        "title": title,
        "gridPos": pos,
        "options": {"mode": "markdown", "content": content},
    }


def layout(items: list[Panel | tuple[str, str, int, int]]) -> list[dict]:
    """Left to right, wrapping at Grafana's 24 columns. A tuple is a text panel (title, markdown, w, h)."""
    out, x, y, row_h = [], 0, 0, 0
    for i, item in enumerate(items, start=1):
        w, h = (item.width, item.height) if isinstance(item, Panel) else (item[2], item[3])
        if x + w > 24:
            x, y, row_h = 0, y + row_h, 0
        pos = {"x": x, "y": y, "w": w, "h": h}
        out.append(panel_json(item, i, pos) if isinstance(item, Panel) else text_panel(i, item[0], item[1], pos))
        x, row_h = x + w, max(row_h, h)
    return out


def query_variable(name: str, sql: str, multi: bool = False, label: str | None = None) -> dict:
    return {
        "type": "query",
        "name": name,
        "label": label or name,
        "datasource": DATASOURCE,
        "query": sql,
        "definition": sql,
        "refresh": 2,
        "multi": multi,
        "includeAll": multi,
        "sort": 1,
        "current": {},
        "options": [],
    }


JOB_VARIABLE_SQL = (
    "SELECT DISTINCT JobName FROM agent_events WHERE $__timeFilter(Timestamp) AND JobName IS NOT NULL ORDER BY JobName"
)
TRIAL_VARIABLE_SQL = "SELECT DISTINCT trial FROM trial_rows FINAL WHERE job = ${job:sqlstring} ORDER BY trial"
TRACE_VARIABLE_SQL = (
    "SELECT TraceId FROM resolved_events FINAL WHERE TrialKey = ${trial:sqlstring} AND JobKey = ${job:sqlstring}"
    " AND TraceId != '' GROUP BY TraceId ORDER BY min(Timestamp)"
)

JOB_LINK = "/d/harborlight-job/harborlight-one-job?var-job=${__value.raw}&${__url_time_range}"
TRIAL_LINK = "/d/harborlight-trial/harborlight-one-trial?var-job=${job}&var-trial=${__value.raw}&${__url_time_range}"
USD, RATE, SECONDS = "currencyUSD", "percentunit", "s"


def dashboard(uid: str, title: str, description_text: str, items: list, variables: list[dict]) -> dict:
    return {
        "uid": uid,
        "title": title,
        "description": description_text,
        "tags": ["harborlight"],
        "editable": True,
        "schemaVersion": 39,
        "version": 1,
        "timezone": "utc",
        "refresh": "30s",
        "time": {"from": "now-7d", "to": "now"},
        "templating": {"list": variables},
        "links": [{"title": "harborlight", "type": "dashboards", "tags": ["harborlight"], "asDropdown": True}],
        "panels": layout(items),
    }


def jobs_overview() -> dict:
    return dashboard(
        "harborlight-jobs",
        "harborlight: jobs",
        NOTE,
        [
            Panel(
                "Jobs",
                "jobs_table.sql",
                [
                    "job",
                    "trials",
                    "running_trials",
                    "resolved",
                    "infra_errors",
                    "raw_solve_rate",
                    "adjusted_solve_rate",
                    "cost_usd",
                    "input_tokens",
                    "output_tokens",
                    "started",
                ],
                width=24,
                units={"raw_solve_rate": RATE, "adjusted_solve_rate": RATE, "cost_usd": USD},
                links={"job": link("Open the job", JOB_LINK)},
            ),
            Panel(
                "Outcome mix over time",
                "jobs_outcomes_over_time.sql",
                ["time", "resolved", "scored", "failed", "agent_error", "infra_error", "unknown", "running"],
                kind="timeseries",
            ),
            Panel(
                "Cost and tokens over time",
                "jobs_usage_over_time.sql",
                ["time", "cost_usd", "input_tokens", "cached_tokens", "output_tokens"],
                kind="timeseries",
                units={"cost_usd": USD},
            ),
        ],
        [query_variable("job", JOB_VARIABLE_SQL, multi=True)],
    )


def one_job() -> dict:
    return dashboard(
        "harborlight-job",
        "harborlight: one job",
        NOTE,
        [
            Panel(
                "Job",
                "job_summary.sql",
                [
                    "trials",
                    "running_trials",
                    "raw_solve_rate",
                    "adjusted_solve_rate",
                    "infra_errors",
                    "cost_usd",
                    "input_tokens",
                    "cache_tokens",
                    "output_tokens",
                ],
                kind="stat",
                width=24,
                height=4,
                units={"raw_solve_rate": RATE, "adjusted_solve_rate": RATE, "cost_usd": USD},
            ),
            Panel(
                "Trials",
                "job_trials.sql",
                [
                    "trial",
                    "task",
                    "attempt",
                    "outcome",
                    "reward",
                    "exception",
                    "total_s",
                    "env_s",
                    "agent_setup_s",
                    "agent_s",
                    "verifier_s",
                    "cost_usd",
                    "input_tokens",
                    "output_tokens",
                    "model_calls",
                    "tool_calls",
                    "rate_limited_calls",
                ],
                width=24,
                height=10,
                units={
                    "total_s": SECONDS,
                    "env_s": SECONDS,
                    "agent_setup_s": SECONDS,
                    "agent_s": SECONDS,
                    "verifier_s": SECONDS,
                    "cost_usd": USD,
                },
                links={"trial": link("Open the trial", TRIAL_LINK)},
            ),
            Panel("Outcomes", "job_outcome_counts.sql", ["outcome", "trials"], kind="barchart", width=8),
            Panel(
                "Tool calls by category",
                "job_tool_categories.sql",
                ["category", "calls", "failed"],
                kind="barchart",
                width=8,
            ),
            Panel(
                "Models",
                "job_models.sql",
                ["model", "calls", "rate_limited", "input_tokens", "cached_tokens", "output_tokens", "cost_usd"],
                width=8,
                units={"cost_usd": USD},
            ),
            Panel(
                "Rate limits (429) and server errors",
                "job_rate_limits.sql",
                ["time", "model_calls", "rate_limited", "server_errors"],
                kind="timeseries",
                width=24,
            ),
        ],
        [query_variable("job", JOB_VARIABLE_SQL)],
    )


def one_trial() -> dict:
    return dashboard(
        "harborlight-trial",
        "harborlight: one trial",
        NOTE,
        [
            Panel(
                "Trial",
                "trial_summary.sql",
                [
                    "outcome",
                    "reward",
                    "exception",
                    "total_s",
                    "cost_usd",
                    "input_tokens",
                    "output_tokens",
                    "model_calls",
                    "tool_calls",
                ],
                kind="stat",
                width=24,
                height=4,
                units={"total_s": SECONDS, "cost_usd": USD},
            ),
            Panel(
                "Phases",
                "trial_phases.sql",
                ["phase", "started", "ended", "duration_s", "raised"],
                width=10,
                units={"duration_s": SECONDS},
            ),
            Panel(
                "Agent events by kind",
                "trial_events_by_kind.sql",
                [
                    "time",
                    "llm_request",
                    "reasoning",
                    "output",
                    "tool",
                    "subagent",
                    "session",
                    "user_message",
                    "compaction",
                    "group",
                ],
                kind="timeseries",
                width=14,
            ),
            Panel(
                "Model calls",
                "trial_model_calls.sql",
                [
                    "time",
                    "model",
                    "http_status",
                    "input_tokens",
                    "cached_tokens",
                    "output_tokens",
                    "reasoning_tokens",
                    "cost_usd",
                    "duration_ms",
                    "error",
                    "trace_id",
                ],
                width=24,
                units={"cost_usd": USD, "duration_ms": "ms"},
            ),
            Panel(
                "Tool calls",
                "trial_tool_calls.sql",
                ["time", "tool", "category", "call_id", "failed", "paths", "duration_ms", "error", "trace_id"],
                width=24,
                units={"duration_ms": "ms"},
            ),
            Panel(
                "Traces",
                "trial_traces.sql",
                ["trace_id", "service", "events", "started"],
                width=8,
                links={"trace_id": explore_trace_link()},
            ),
            Panel(
                "Trace view ($trace)",
                "trial_trace.sql",
                [
                    "traceID",
                    "spanID",
                    "parentSpanID",
                    "serviceName",
                    "operationName",
                    "startTime",
                    "duration",
                    "tags",
                    "serviceTags",
                    "statusCode",
                    "logs",
                    "references",
                    "kind",
                    "statusMessage",
                    "traceState",
                ],
                kind="traces",
                width=16,
                height=12,
            ),
        ],
        [
            query_variable("job", JOB_VARIABLE_SQL),
            query_variable("trial", TRIAL_VARIABLE_SQL),
            query_variable("trace", TRACE_VARIABLE_SQL),
        ],
    )


REJECTED = """**Rejected items are not in the store.** harborlight rejects bad items one by one before they are
written (bad ids, bad UTF-8) and answers with the OTLP `partial_success` counts, so the tables hold only what
was stored. Received, accepted, rejected (by reason), truncated and duplicate counts since start are on
`GET /api/ingest` and in the Prometheus text at `GET /metrics` (`harborlight_ingest_received_total`,
`harborlight_ingest_rejected_total`, `harborlight_ingest_refused_requests_total`): add a Prometheus data source
scraping `/metrics` to chart them here, e.g. `sum by (signal) (rate(harborlight_ingest_rejected_total[1m]))`."""


def ingest_health() -> dict:
    return dashboard(
        "harborlight-ingest",
        "harborlight: ingest health",
        "What the store holds about ingest: acknowledged requests, rows stored per table, "
        "truncated items and lag. harborlight_ingested_requests has no tenant column: through "
        "harborlight's ClickHouse interface only the operator token sees its panels' rows.",
        [
            Panel(
                "Acknowledged items per second (by arrival)",
                "ingest_committed.sql",
                ["time", "spans_per_s", "log_records_per_s", "data_points_per_s", "requests_per_s"],
                kind="timeseries",
            ),
            Panel(
                "Rows stored per second (by telemetry time)",
                "ingest_stored.sql",
                ["time", "spans_per_s", "log_records_per_s", "agent_events_per_s"],
                kind="timeseries",
            ),
            Panel(
                "Ingest lag",
                "ingest_lag.sql",
                ["spans_lag_s", "logs_lag_s", "agent_events_lag_s", "last_commit_age_s"],
                kind="stat",
                height=5,
                units={c: SECONDS for c in ("spans_lag_s", "logs_lag_s", "agent_events_lag_s", "last_commit_age_s")},
            ),
            Panel(
                "Truncated items per second",
                "ingest_truncated.sql",
                ["time", "truncated_spans_per_s", "truncated_log_records_per_s"],
                kind="timeseries",
                height=5,
            ),
            ("Rejected items", REJECTED, 24, 5),
        ],
        [],
    )


DASHBOARDS = {
    "harborlight-jobs.json": jobs_overview,
    "harborlight-job.json": one_job,
    "harborlight-trial.json": one_trial,
    "harborlight-ingest.json": ingest_health,
}


def render() -> dict[str, str]:
    """File name -> JSON text, as written."""
    return {name: json.dumps(build(), indent=2) + "\n" for name, build in DASHBOARDS.items()}


if __name__ == "__main__":
    for name, text in render().items():
        (OUT / name).write_text(text)
        print(f"wrote {OUT / name}")
