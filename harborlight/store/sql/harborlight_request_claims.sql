-- Which write-ahead log stores each export request, when receivers share a server: the first to claim a
-- request's digest owns it (each claim is inserted under the digest as its deduplication token, so the engine
-- drops every later claim), and a receiver holding another log's claim leaves the request to that log, which
-- stores it, after a restart too. Claims are kept as long as the stored digests (harborlight_ingested_requests).
CREATE TABLE IF NOT EXISTS harborlight_request_claims (
    Digest String CODEC(ZSTD(1)),
    Log String,
    ClaimedAt DateTime DEFAULT now()
) ENGINE = MergeTree()
ORDER BY Digest
TTL ClaimedAt + toIntervalDay(2)
SETTINGS non_replicated_deduplication_window = 100000, replicated_deduplication_window = 100000
