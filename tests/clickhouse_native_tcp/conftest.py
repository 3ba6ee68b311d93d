"""A harborlight with tenants and both ClickHouse ports on (native TCP and HTTP); two tenants' spans and log
events stored through OTLP/HTTP."""

import uuid

import httpx
import pytest
from clickhouse_driver import Client

from harborlight.settings import Settings
from tests.support.otlp import logs_request, traces_request
from tests.support.servers import InProcessServer

TOKENS = {"tcp-acme": "acme", "tcp-globex": "globex"}
OPERATOR = "tcp-operator"
TIMEOUTS = {"connect_timeout": 60, "send_receive_timeout": 300, "sync_request_timeout": 60}


@pytest.fixture(scope="module")
def guarded(store_dir, tmp_path_factory):
    tokens_file = tmp_path_factory.mktemp("tcp-auth") / "tokens"
    tokens_file.write_text("".join(f"{t} {n}\n" for t, n in TOKENS.items()))
    settings = Settings(
        data_dir=store_dir, tokens_file=tokens_file, auth_token=OPERATOR, clickhouse_http_port=0, clickhouse_tcp_port=0
    )
    srv = InProcessServer(settings).start()
    yield srv
    srv.stop()


@pytest.fixture(scope="module")
def tcp_port(guarded) -> int:
    return guarded.run.clickhouse_tcp_port


@pytest.fixture(scope="module")
def http_port(guarded) -> int:
    return guarded.run.clickhouse_http_port


@pytest.fixture(scope="module")
def tenants_data(guarded):
    """Per tenant: a service name that only that tenant's spans and log events carry."""
    services, run = {}, uuid.uuid4().hex[:8]
    for token, tenant in TOKENS.items():
        service = f"tcp-{tenant}-{run}"
        headers = {"content-type": "application/x-protobuf", "authorization": f"Bearer {token}"}
        for path, request in (
            ("traces", traces_request(service, 3, job=f"job-{tenant}")),
            ("logs", logs_request(service, 2)),
        ):
            answer = httpx.post(
                f"{guarded.http_url}/v1/{path}", content=request.SerializeToString(), headers=headers, timeout=120
            )
            assert answer.status_code == 200, answer.text
        services[tenant] = service
    return services


@pytest.fixture
def driver(tcp_port):
    """clickhouse-driver as the operator (every tenant's rows)."""

    def connect(password: str = OPERATOR, **kwargs) -> Client:
        return Client("127.0.0.1", port=tcp_port, user="grafana", password=password, **TIMEOUTS, **kwargs)

    clients = []

    def make(*args, **kwargs) -> Client:
        clients.append(connect(*args, **kwargs))
        return clients[-1]

    yield make
    for client in clients:
        client.disconnect()
