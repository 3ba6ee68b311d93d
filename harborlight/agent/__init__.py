"""Telemetry as agent behaviour: the convention table, its compilation to SQL, trial identity and twins."""
