"""ClickHouse's native TCP protocol in front of the store, over the HTTP interface's guard."""

from harborlight.sqlport.native_tcp.server import clickhouse_tcp_server, optional_clickhouse_tcp_server

__all__ = ["clickhouse_tcp_server", "optional_clickhouse_tcp_server"]
