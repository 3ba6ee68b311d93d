"""A job's (or one trial's) span-duration chart from the store (harborlight/read/statements/duration_bins_sql.py counts,
harborlight/read/derive/duration_bins.py shapes)."""

from clickhouse_connect.driver.client import Client

from harborlight.read.derive.duration_bins import BinCount, DurationChart, duration_chart, edges_ns
from harborlight.read.statements.duration_bins_sql import BINS, WITHOUT_CLOCK


def load_duration_chart(client: Client, tenant: str, job: str, trial: str = "") -> DurationChart:
    params = {"tenant": tenant, "job": job, "trial": trial, "edges": edges_ns()}
    counts = [BinCount(kind, b, n, total) for kind, b, n, total in client.query(BINS, parameters=params).result_rows]
    return duration_chart(counts, client.query(WITHOUT_CLOCK, parameters=params).result_rows[0][0])
