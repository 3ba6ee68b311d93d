-- A store from before the SessionId column gets the index its CREATE TABLE has: without it a session's look-up
-- (harborlight/agent/identity.py renames) checks every granule of agent_events.
ALTER TABLE agent_events ADD INDEX IF NOT EXISTS idx_session_id SessionId TYPE bloom_filter(0.001) GRANULARITY 1
