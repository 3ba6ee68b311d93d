"""The write path behind the write-ahead log: the committer groups logged requests and inserts them into the store."""
