ALTER TABLE agent_events
    ADD COLUMN IF NOT EXISTS AgentVersion Nullable(String) CODEC(ZSTD(1)) AFTER RequestId,
    ADD COLUMN IF NOT EXISTS SideCall LowCardinality(Nullable(String)) AFTER AgentVersion
