"""What one trial's producer totalled itself, from the store, as harborlight/read/derive/producer_totals.py takes it."""

from clickhouse_connect.driver.client import Client

from harborlight.read.derive.producer_totals import (
    CounterTotal,
    Totals,
    final_metrics_of,
    producer_totals,
)
from harborlight.read.derive.provenance import Valued
from harborlight.read.statements.producer_totals_sql import COUNTER_TOTALS, FINAL_METRICS


def load_totals(client: Client, tenant: str, trial: str, jobs: list[str]) -> Valued[Totals]:
    """`jobs`: the jobs the trial's events are in (a trial name may repeat across jobs)."""
    params = {"tenant": tenant, "trial": trial, "jobs": jobs}
    finals = [
        f
        for agent, agent_id, text in client.query(FINAL_METRICS, parameters=params).result_rows
        if (f := final_metrics_of(agent, agent_id, text)) is not None
    ]
    counters = [
        CounterTotal(metric, model, kind, unit, total, points)
        for metric, model, kind, unit, total, points in client.query(COUNTER_TOTALS, parameters=params).result_rows
    ]
    return producer_totals(finals, counters)
