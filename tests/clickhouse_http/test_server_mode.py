"""The interface in server mode (`--clickhouse-url`): statements pass through to the server, guarded the same way.
Against the chDB-backed stand-in (or a real server when CLICKHOUSE_URL is set)."""

import uuid

import clickhouse_connect
import httpx
import pytest
from clickhouse_connect.driver.exceptions import DatabaseError

from harborlight.settings import Settings
from tests.clickhouse_http.conftest import TOKENS
from tests.storage.test_server_mode import clickhouse_url  # noqa: F401  (the stand-in fixture)
from tests.support.clickhouse_go import open_grafana_connection
from tests.support.otlp import traces_request
from tests.support.servers import InProcessServer


@pytest.fixture(scope="module")
def passthrough(clickhouse_url, tmp_path_factory):  # noqa: F811
    tokens_file = tmp_path_factory.mktemp("ch-server-auth") / "tokens"
    tokens_file.write_text("".join(f"{t} {n}\n" for t, n in TOKENS.items()))
    srv = InProcessServer(
        Settings(clickhouse_url=clickhouse_url, tokens_file=tokens_file, clickhouse_http_port=0)
    ).start()
    yield srv
    srv.stop()


def test_server_mode_passes_reads_through_tenant_scoped_and_refuses_writes(passthrough):
    run = uuid.uuid4().hex[:8]
    for token, tenant in TOKENS.items():
        answer = httpx.post(
            f"{passthrough.http_url}/v1/traces",
            content=traces_request(f"{tenant}-{run}", 2).SerializeToString(),
            headers={"content-type": "application/x-protobuf", "authorization": f"Bearer {token}"},
        )
        assert answer.status_code == 200, answer.text
    acme = clickhouse_connect.get_client(
        host="127.0.0.1", port=passthrough.run.clickhouse_http_port, password="ch-acme", compress=False
    )
    seen = acme.query(
        "SELECT DISTINCT ServiceName FROM otel_traces WHERE ServiceName LIKE {p:String}", parameters={"p": f"%-{run}"}
    ).result_rows
    assert seen == [(f"acme-{run}",)]
    with pytest.raises(DatabaseError) as refused:
        acme.command("INSERT INTO otel_traces (TraceId) VALUES ('x')")
    assert "Code: 164." in str(refused.value)
    answer = httpx.post(
        f"http://127.0.0.1:{passthrough.run.clickhouse_http_port}/",
        auth=("u", "ch-acme"),
        content=b"SELECT 1 AS one FORMAT JSONEachRow",
        params={"default_format": "Native"},
    )
    assert answer.json() == {"one": 1} and answer.headers["x-clickhouse-format"] == "JSONEachRow"


def test_server_mode_passes_the_clients_protocol_revision_through(passthrough):
    """clickhouse-go (Grafana's driver) decodes at revision 54460 only if the server wrote that revision."""
    run = uuid.uuid4().hex[:8]
    answer = httpx.post(
        f"{passthrough.http_url}/v1/traces",
        content=traces_request(f"acme-go-{run}", 2).SerializeToString(),
        headers={"content-type": "application/x-protobuf", "authorization": "Bearer ch-acme"},
    )
    assert answer.status_code == 200, answer.text
    connection = open_grafana_connection(passthrough.run.clickhouse_http_port, "ch-acme")
    rows = connection.query(
        f"SELECT ServiceName, count() FROM otel_traces WHERE ServiceName LIKE '%-{run}' GROUP BY ServiceName"
    ).rows
    assert rows == [(f"acme-go-{run}", 2)]
