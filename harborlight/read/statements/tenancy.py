"""Every query filters by the caller's tenant (harborlight/api/deps.py: `Tenant`, from the token), bound as
{tenant:String}; '' means tenants are off and the filters below match every row. One filter per kind of table."""

RAW_TENANT_FILTER = "({tenant:String} = '' OR ResourceAttributes['harborlight.tenant'] = {tenant:String})"
AGENT_TENANT_FILTER = "({tenant:String} = '' OR Tenant = {tenant:String})"
