"""The SQL of the stored job rows (harborlight/store/sql/job_rows.sql): the rows of given jobs read back, and the
jobs whose trials are stored without a job row (a store from before job rows)."""

from harborlight.read.statements.tenancy import AGENT_TENANT_FILTER

JOB_ROWS = f"""
SELECT job, Row FROM job_rows FINAL
WHERE {AGENT_TENANT_FILTER} AND job IN {{jobs:Array(String)}}
ORDER BY job
"""

# (tenant, job) of every job with stored trial rows and no job row.
UNDERIVED = """
SELECT DISTINCT Tenant, job FROM trial_rows FINAL
WHERE (Tenant, job) NOT IN (SELECT Tenant, job FROM job_rows FINAL)
ORDER BY Tenant, job
"""
