ALTER TABLE agent_events ADD COLUMN IF NOT EXISTS RequestId Nullable(String) CODEC(ZSTD(1)) AFTER Provenance
