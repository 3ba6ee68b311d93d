"""The SQL that reads what a trial's producer totalled itself (harborlight/read/derive/producer_totals.py): the ATIF
final_metrics on its trajectories' invoke_agent spans, and its token and cost counters' points. Both are
named after the trial by the resource attributes the harness (or the Harbor importer) sets; the spans read
within the trial's key range (within_trials), not every trial's."""

from harborlight.read.derive.producer_totals import COUNTERS
from harborlight.read.statements.tenancy import RAW_TENANT_FILTER
from harborlight.read.statements.trial_rows_sql import within_trials
from harborlight.sql_text import Sql, literal

FINAL_METRICS_KEY = "atif.final_metrics"  # harborlight/transfer/atif_attributes.py writes it on the invoke_agent span
_TRIAL = """ResourceAttributes['harbor.trial.name'] = {trial:String}
  AND has({jobs:Array(String)}, ResourceAttributes['harbor.job.name'])"""

FINAL_METRICS = f"""
SELECT SpanAttributes['gen_ai.agent.name'], SpanAttributes['gen_ai.agent.id'], SpanAttributes['{FINAL_METRICS_KEY}']
FROM otel_traces
WHERE {RAW_TENANT_FILTER} AND {_TRIAL} AND SpanAttributes['{FINAL_METRICS_KEY}'] != ''
  AND {within_trials(Sql("TrialName = {trial:String}"), Sql("has({jobs:Array(String)}, assumeNotNull(JobName))")).text}
ORDER BY Timestamp, SpanId
"""

_SUMS = [m for m in COUNTERS if not m.startswith("codex.")]
_HISTOGRAMS = [m for m in COUNTERS if m.startswith("codex.")]  # explicit or exponential, as its SDK aggregates


def _type() -> str:
    picks = ", ".join(f"MetricName = {literal(m)}, Attributes[{literal(key)}]" for m, key in COUNTERS.items() if key)
    return f"nullIf(multiIf({picks}, ''), '')"


def _series(table: str, value: str, metrics: list[str]) -> str:
    """One row per series (attributes and start time): a delta series' points added up (AggregationTemporality
    1), a cumulative one's latest point (2)."""
    return f"""
    SELECT MetricName, nullIf(MetricUnit, '') AS unit, nullIf(Attributes['model'], '') AS model,
           {_type()} AS type, if(AggregationTemporality = 2, argMax({value}, TimeUnix), sum({value})) AS v,
           count() AS n
    FROM {table}
    WHERE {RAW_TENANT_FILTER} AND {_TRIAL} AND MetricName IN ({", ".join(literal(m) for m in metrics)})
      AND AggregationTemporality IN (1, 2)
    GROUP BY MetricName, MetricUnit, Attributes, StartTimeUnix, AggregationTemporality"""


COUNTER_TOTALS = f"""
SELECT MetricName, model, type, any(unit), sum(v), sum(n)
FROM ({_series("otel_metrics_sum", "Value", _SUMS)}
    UNION ALL {_series("otel_metrics_histogram", "Sum", _HISTOGRAMS)}
    UNION ALL {_series("otel_metrics_exponential_histogram", "Sum", _HISTOGRAMS)})
GROUP BY MetricName, model, type
ORDER BY MetricName, model, type
"""
