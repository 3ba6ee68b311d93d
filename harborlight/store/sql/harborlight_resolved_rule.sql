-- The resolutions resolved_events was written by, newest last (the hash of harborlight/summaries/resolve.py's
-- statements): a start whose code resolves otherwise than the newest finds every trial to resolve again.
CREATE TABLE IF NOT EXISTS harborlight_resolved_rule (
    Hash String,
    At DateTime64(3) DEFAULT now64(3)
) ENGINE = MergeTree()
ORDER BY At
