ALTER TABLE agent_events
    ADD COLUMN IF NOT EXISTS SessionId Nullable(String) CODEC(ZSTD(1)) AFTER SideCall
