"""The ClickHouse-compatible SQL interface: a read-only front door of its own (ClickHouse's HTTP wire,
Native format at the client's revision), for Grafana and other ClickHouse clients."""
