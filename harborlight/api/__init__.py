"""The HTTP API: its routes, the live feed, who is asking (tenancy)."""
