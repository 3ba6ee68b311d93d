"""The native TCP port in server mode (`--clickhouse-url`): statements pass through the same guard to the server
(the chDB-backed stand-in, or a real server when CLICKHOUSE_URL is set), which writes revision-0 Native that the
port frames for the client's revision."""

import pytest
from clickhouse_driver import Client, errors

from harborlight.settings import Settings
from tests.clickhouse_native_tcp.conftest import TIMEOUTS, TOKENS
from tests.storage.test_server_mode import clickhouse_url  # noqa: F401  (the stand-in fixture)
from tests.support.clickhouse_go_tcp import open_grafana_native
from tests.support.servers import InProcessServer


@pytest.fixture(scope="module")
def passthrough(clickhouse_url, tmp_path_factory):  # noqa: F811
    tokens_file = tmp_path_factory.mktemp("tcp-server-auth") / "tokens"
    tokens_file.write_text("".join(f"{t} {n}\n" for t, n in TOKENS.items()))
    srv = InProcessServer(
        Settings(clickhouse_url=clickhouse_url, tokens_file=tokens_file, clickhouse_tcp_port=0)
    ).start()
    yield srv
    srv.stop()


def test_server_mode_answers_blocks_at_the_clients_revision(passthrough):
    port = passthrough.run.clickhouse_tcp_port
    client = Client("127.0.0.1", port=port, password="tcp-acme", compression="lz4", **TIMEOUTS)
    try:
        rows = list(
            client.execute_iter(
                "SELECT number, toString(number) FROM numbers(100000)", settings={"max_block_size": 10_000}
            )
        )
        assert len(rows) == 100_000 and rows[-1] == (99999, "99999")
        assert client.execute("SELECT count() FROM otel_traces WHERE ServiceName = 'nobody'") == [(0,)]
        with pytest.raises(errors.ServerException) as refused:
            client.execute("INSERT INTO otel_traces (TraceId) VALUES ('x')")
        assert refused.value.code == 164
    finally:
        client.disconnect()
    go = open_grafana_native(port, "tcp-globex")
    try:
        assert go.query("SELECT 1 AS one, [toLowCardinality('x')] AS lc").rows == [(1, ["x"])]
    finally:
        go.close()
