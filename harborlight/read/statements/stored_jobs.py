"""Jobs as stored in job_rows (harborlight/summaries/ keeps them fresh): the job rows the API answers."""

import json
from collections.abc import Sequence
from typing import Any

from clickhouse_connect.driver.client import Client

from harborlight.read.statements.job_rows_sql import JOB_ROWS


def stored_job_rows(client: Client, tenant: str, jobs: Sequence[str]) -> dict[str, dict[str, Any]]:
    """{job: its row as the API answers it} of those of `jobs` that have a stored row."""
    rows = client.query(JOB_ROWS, parameters={"tenant": tenant, "jobs": list(jobs)}).result_rows
    return {job: json.loads(row) for job, row in rows}
