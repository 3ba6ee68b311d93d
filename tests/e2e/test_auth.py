"""Bearer tokens on every door, and tenants that never see each other's rows."""

import grpc
import httpx
import pytest
from google.rpc import status_pb2
from opentelemetry.proto.collector.trace.v1.trace_service_pb2_grpc import TraceServiceStub

from harborlight.settings import Settings
from tests.support.otlp import logs_request, traces_request
from tests.support.servers import InProcessServer

TOKENS = {"tok-acme": "acme", "tok-globex": "globex"}
OPERATOR = "tok-operator"


@pytest.fixture(scope="module")
def guarded(store_dir, tmp_path_factory):
    tokens_file = tmp_path_factory.mktemp("auth") / "tokens"
    tokens_file.write_text("# token tenant\n" + "".join(f"{t} {n}\n" for t, n in TOKENS.items()))
    srv = InProcessServer(Settings(data_dir=store_dir, tokens_file=tokens_file, auth_token=OPERATOR)).start()
    yield srv
    srv.stop()


def _bearer(token: str) -> dict:
    return {"authorization": f"Bearer {token}"}


def _post(server, body: bytes, token: str | None, signal: str = "traces") -> httpx.Response:
    headers = {"content-type": "application/x-protobuf", **(_bearer(token) if token else {})}
    return httpx.post(f"{server.http_url}/v1/{signal}", content=body, headers=headers)


def _api_routes(server) -> list[tuple[str, str]]:
    """(method, path) of every route in the OpenAPI document but /healthz and the OTLP receivers."""
    spec = httpx.get(f"{server.http_url}/openapi.json").json()
    return [
        (method, path)
        for path, ops in spec["paths"].items()
        for method in ops
        if path != "/healthz" and not path.startswith("/v1/")
    ]


def test_ingest_without_or_with_a_wrong_token_is_refused_and_stores_nothing(guarded, unique):
    body = traces_request(unique, 3).SerializeToString()
    for token in (None, "not-a-token"):
        answer = _post(guarded, body, token)
        assert answer.status_code == 401 and answer.headers["www-authenticate"] == "Bearer"
        assert "token" in status_pb2.Status.FromString(answer.content).message
    with grpc.insecure_channel(guarded.grpc_endpoint) as channel:
        stub = TraceServiceStub(channel)
        for metadata in ((), (("authorization", "Bearer nope"),)):
            with pytest.raises(grpc.RpcError) as refused:
                stub.Export(traces_request(unique, 2), metadata=metadata)
            assert refused.value.code() == grpc.StatusCode.UNAUTHENTICATED
    assert guarded.sql("SELECT count() FROM otel_traces WHERE ServiceName = {s:String}", s=unique) == [(0,)]


def test_every_api_route_asks_for_a_token(guarded):
    routes = _api_routes(guarded)
    paths = {path for _, path in routes}
    assert {"/api/spans", "/api/ingest", "/metrics"} <= paths
    for method, path in routes:
        concrete = path.replace("{", "").replace("}", "")  # path parameters become literal names
        answer = httpx.request(method.upper(), f"{guarded.http_url}{concrete}")
        assert answer.status_code == 401, f"{method} {path} answered {answer.status_code} without a token"
    assert httpx.get(f"{guarded.http_url}/healthz").status_code == 200  # for load balancers


def test_tenants_write_with_their_token_and_read_only_their_rows(guarded, unique):
    acme, globex = f"{unique}-acme", f"{unique}-globex"
    assert _post(guarded, traces_request(acme, 3, job=acme).SerializeToString(), "tok-acme").status_code == 200
    assert _post(guarded, traces_request(globex, 2, job=globex).SerializeToString(), "tok-globex").status_code == 200
    assert _post(guarded, logs_request(acme, 2).SerializeToString(), "tok-acme", "logs").status_code == 200
    with grpc.insecure_channel(guarded.grpc_endpoint) as channel:
        TraceServiceStub(channel).Export(
            traces_request(acme, 1, job=acme), metadata=(("authorization", "Bearer tok-acme"),)
        )

    # Every stored row carries its writer's tenant, whatever the client claimed.
    assert guarded.sql(
        "SELECT ResourceAttributes['harborlight.tenant'], count() FROM otel_traces "
        "WHERE ServiceName IN ({a:String}, {g:String}) GROUP BY 1 ORDER BY 1",
        a=acme,
        g=globex,
    ) == [("acme", 4), ("globex", 2)]

    def spans(token: str, **params) -> list[dict]:
        return httpx.get(f"{guarded.http_url}/api/spans", params=params, headers=_bearer(token)).json()["items"]

    assert {s["service"] for s in spans("tok-acme", name="step 0")} >= {acme}
    assert not [s for s in spans("tok-acme", limit=1000) if s["service"] == globex]
    assert spans("tok-acme", job=globex) == []
    assert len(spans("tok-globex", job=globex)) == 2

    trial_of_globex = spans("tok-globex", job=globex)[0]["trial"]
    assert (
        httpx.get(f"{guarded.http_url}/api/trials/{trial_of_globex}/trace", headers=_bearer("tok-acme")).status_code
        == 404
    )

    def ingest(token: str) -> dict:
        return httpx.get(f"{guarded.http_url}/api/ingest", headers=_bearer(token)).json()

    assert {r["service"] for r in ingest("tok-acme")["stored"]} >= {acme}
    assert globex not in {r["service"] for r in ingest("tok-acme")["stored"]}
    assert globex not in {r["service"] for r in ingest("tok-acme")["since_start"]["sources"]}
    # The writer's figures count every tenant's commits: only the operator sees them.
    assert ingest("tok-acme")["writer"] is None
    assert ingest(OPERATOR)["writer"]["requests"] >= 2

    metrics = httpx.get(f"{guarded.http_url}/metrics", headers=_bearer("tok-acme"))
    assert metrics.status_code == 403
    operator = httpx.get(f"{guarded.http_url}/metrics", headers=_bearer(OPERATOR)).text
    assert f'service="{acme}"' in operator and 'tenant="acme"' in operator


def test_a_client_cannot_claim_another_tenant_in_its_resource(guarded, unique):
    request = traces_request(unique, 1)
    request.resource_spans[0].resource.attributes.add(key="harborlight.tenant").value.string_value = "globex"
    assert _post(guarded, request.SerializeToString(), "tok-acme").status_code == 200
    assert guarded.sql(
        "SELECT ResourceAttributes['harborlight.tenant'] FROM otel_traces WHERE ServiceName = {s:String}", s=unique
    ) == [("acme",)]


def _stream_trial(server, token: str, job: str, trial: str, reward: float) -> None:
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter

    from harborlight.harbor.harness.identity import TrialIdentity
    from harborlight.harbor.harness.lifecycle import tracer_provider, trial_spans

    identity = TrialIdentity(job=job, trial=trial, task="task-1", attempt=1, agent="claude-code")
    exporter = OTLPSpanExporter(endpoint=f"{server.http_url}/v1/traces", headers=_bearer(token))
    provider = tracer_provider(identity, exporter)
    with trial_spans(identity, provider) as spans:
        with spans.phase("agent_execution"):
            pass
        with spans.verifier() as verifier:
            verifier.reward("reward", reward)
    provider.shutdown()


def test_job_and_trial_routes_answer_only_the_callers_tenant(guarded, unique):
    job, trial = f"{unique}-job", f"{unique}-trial"
    _stream_trial(guarded, "tok-acme", job, trial, 1.0)
    mine, theirs = _bearer("tok-acme"), _bearer("tok-globex")
    routes = [
        f"/api/jobs/{job}",
        f"/api/jobs/{job}/trials",
        f"/api/trials/{trial}",
        f"/api/trials/{trial}/behavior",
        f"/api/jobs/{job}/report",
        f"/api/trials/{trial}/trace",
    ]
    for path in routes:
        assert httpx.get(f"{guarded.http_url}{path}", headers=mine).status_code == 200, path
        answer = httpx.get(f"{guarded.http_url}{path}", headers=theirs)
        assert answer.status_code == 404, f"{path} showed acme's job to globex: {answer.status_code}"

    def jobs(headers) -> set[str]:
        return {row["job"] for row in httpx.get(f"{guarded.http_url}/api/jobs", headers=headers).json()["items"]}

    assert job in jobs(mine) and job not in jobs(theirs)
    compare = httpx.get(f"{guarded.http_url}/api/compare", params={"jobs": f"{job},{job}"}, headers=theirs)
    assert compare.status_code in (400, 404)
