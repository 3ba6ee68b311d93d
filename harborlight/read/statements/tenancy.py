"""Every query filters by the caller's tenant (harborlight/api/deps.py: `Tenant`, from the token), bound as
{tenant:String}; '' means tenants are off and the filters below match every row. One filter per kind of table."""

from harborlight.sql_text import RAW_TENANT

RAW_TENANT_FILTER = f"({{tenant:String}} = '' OR {RAW_TENANT} = {{tenant:String}})"
AGENT_TENANT_FILTER = "({tenant:String} = '' OR Tenant = {tenant:String})"
