-- A store from before the trace-id index kept its rows' tenant: the column, filled when the table is made again
-- with the tenant leading its partition key (harborlight/store/schema.py).
ALTER TABLE otel_traces_trace_id_ts ADD COLUMN IF NOT EXISTS Tenant LowCardinality(String)
