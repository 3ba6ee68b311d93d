CREATE TABLE IF NOT EXISTS harborlight_ingested_requests (
    Digest String CODEC(ZSTD(1)),
    Signal LowCardinality(String),
    Items UInt32,
    ReceivedAt DateTime DEFAULT now()
) ENGINE = ReplacingMergeTree()
ORDER BY Digest
TTL ReceivedAt + toIntervalDay(2)
