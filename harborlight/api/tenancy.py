"""Who is asking: every /api route runs `require_caller`, and every query filters by its tenant.

The composition root puts an `authenticate(authorization header) -> tenant | None` callable on
app.state; it raises HTTPException(401) for a missing or unknown token. With tenants off the tenant
is None and the filters below match every row.
"""

from fastapi import Request

# Bind as {tenant:String}; '' means tenants are off. One filter per kind of table.
RAW_TENANT_FILTER = "({tenant:String} = '' OR ResourceAttributes['harborlight.tenant'] = {tenant:String})"
AGENT_TENANT_FILTER = "({tenant:String} = '' OR Tenant = {tenant:String})"


async def require_caller(request: Request) -> None:
    request.state.tenant = request.app.state.authenticate(request.headers.get("authorization"))


def tenant_of(request: Request) -> str:
    """The caller's tenant as a query parameter: '' when tenants are off."""
    return getattr(request.state, "tenant", None) or ""
