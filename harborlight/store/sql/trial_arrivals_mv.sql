CREATE MATERIALIZED VIEW IF NOT EXISTS trial_arrivals_mv TO trial_arrivals AS
SELECT Tenant, ifNull(TrialName, '') AS TrialKey, count() AS Arrived
FROM agent_events
GROUP BY Tenant, TrialKey
