"""The live feed (/api/live): committed rows turned into server-sent events, and a job's history."""
