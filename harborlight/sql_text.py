"""What every statement of the code base shares: one way to write a string literal, and the tenant's names."""

# The resource attribute a raw row's tenant is stamped as (with tenants on), and the expression that reads it;
# the agent layer's tables carry it as their Tenant column.
TENANT_ATTRIBUTE = "harborlight.tenant"
RAW_TENANT = f"ResourceAttributes['{TENANT_ATTRIBUTE}']"


def literal(value: str) -> str:
    """A ClickHouse string literal of `value` (backslashes and quotes escaped)."""
    return "'" + value.replace("\\", "\\\\").replace("'", "\\'") + "'"
