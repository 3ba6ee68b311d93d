"""A harborlight with tenants and its ClickHouse HTTP interface on; two tenants' spans and agent events stored."""

import uuid

import httpx
import pytest

from harborlight.settings import Settings
from tests.support.otlp import logs_request, traces_request
from tests.support.servers import InProcessServer

TOKENS = {"ch-acme": "acme", "ch-globex": "globex"}
OPERATOR = "ch-operator"


@pytest.fixture(scope="module")
def guarded(store_dir, tmp_path_factory):
    tokens_file = tmp_path_factory.mktemp("ch-auth") / "tokens"
    tokens_file.write_text("".join(f"{t} {n}\n" for t, n in TOKENS.items()))
    settings = Settings(data_dir=store_dir, tokens_file=tokens_file, auth_token=OPERATOR, clickhouse_http_port=0)
    srv = InProcessServer(settings).start()
    yield srv
    srv.stop()


@pytest.fixture(scope="module")
def tenants_data(guarded):
    """Per tenant: a service name that only that tenant's spans and log events carry."""
    services, run = {}, uuid.uuid4().hex[:8]  # each test module stores its own rows in the session's store
    for token, tenant in TOKENS.items():
        service = f"svc-{tenant}-{run}"
        headers = {"content-type": "application/x-protobuf", "authorization": f"Bearer {token}"}
        for path, request in (
            ("traces", traces_request(service, 3, job=f"job-{tenant}")),
            ("logs", logs_request(service, 2)),
        ):
            answer = httpx.post(f"{guarded.http_url}/v1/{path}", content=request.SerializeToString(), headers=headers)
            assert answer.status_code == 200, answer.text
        services[tenant] = service
    return services


@pytest.fixture(scope="module")
def ch_port(guarded) -> int:
    return guarded.run.clickhouse_http_port
