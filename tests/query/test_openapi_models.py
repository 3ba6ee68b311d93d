"""OpenAPI names a schema for every JSON route, and what a real server answers holds to it.

Every route of /openapi.json whose 200 answer is JSON is called on the session server with real data (two
streamed jobs: harness spans, agent spans, Claude Code events; a recorded Claude Code session uploaded to
POST /api/import/otlp), and each answer is validated against the schema the document gives for it; the
receivers' routes (OTLP/JSON exports taken in part, MLflow's experiment routes) too. A route added without a
schema, or a field an answer carries that its model does not name, fails here."""

import base64
import json
import urllib.parse
import uuid
from pathlib import Path

import httpx
import pytest
from google.protobuf import json_format
from jsonschema import Draft202012Validator
from opentelemetry.proto.collector.metrics.v1.metrics_service_pb2 import ExportMetricsServiceRequest

from tests.query.job_stream import stream_job
from tests.support.otlp import logs_request, traces_request

# The receivers' routes (harborlight/ingest/): OTLP's own answers (protobuf or OTLP/JSON) and MLflow's, called
# with what their clients send (test_the_receivers_answers_hold_to_their_schemas).
RECEIVERS = {
    "/v1/traces",
    "/v1/logs",
    "/v1/metrics",
    "/api/2.0/mlflow/experiments/search",
    "/api/2.0/mlflow/experiments/create",
}
RECORDED = Path(__file__).resolve().parents[1] / "real_agents" / "fixtures" / "claude-code-2.1.197-edit-http.jsonl"


@pytest.fixture(scope="module")
def document(server) -> dict:
    return httpx.get(f"{server.http_url}/openapi.json", timeout=60).json()


@pytest.fixture(scope="module")
def jobs(server):
    unique = uuid.uuid4().hex[:12]
    return stream_job(server, unique), stream_job(server, f"{unique}b", failed_reward=1.0)


def json_routes(document: dict) -> list[tuple[str, str, dict]]:
    """(method, path, schema of its 200 JSON answer) of every route that answers JSON."""
    return [
        (method, path, operation["responses"]["200"]["content"]["application/json"].get("schema"))
        for path, operations in document["paths"].items()
        for method, operation in operations.items()
        if "application/json" in operation["responses"].get("200", {}).get("content", {})
    ]


def problems(document: dict, schema: dict, answer: object) -> list[str]:
    validator = Draft202012Validator({**schema, "components": document["components"]})
    return [f"{'/'.join(map(str, e.absolute_path))}: {e.message[:300]}" for e in validator.iter_errors(answer)]


def test_every_json_route_names_a_schema(document):
    routes = json_routes(document)
    assert len(routes) >= 15
    assert {path for _, path, _ in routes} >= RECEIVERS
    untyped = [
        f"{method.upper()} {path}"
        for method, path, schema in routes
        if not schema or not ("$ref" in schema or "type" in schema)
    ]
    assert not untyped, f"JSON routes without a schema for their answer: {untyped}"


def _call(server, jobs, method: str, path: str) -> httpx.Response:
    job, other = jobs
    url = server.http_url + path.format(job=job.job, trial=job.resolved)
    if method == "post":  # /api/import/otlp: a recorded session, as a user uploads it
        return httpx.post(url, params={"name": RECORDED.name}, content=RECORDED.read_bytes(), timeout=300)
    params = {"jobs": f"{job.job},{other.job}", "last_message": "true"} if path == "/api/compare" else {}
    return httpx.get(url, params=params, timeout=300)


def test_every_json_answer_holds_to_its_schema(server, document, jobs):
    checked = []
    for method, path, schema in json_routes(document):
        if path in RECEIVERS:
            continue
        reply = _call(server, jobs, method, path)
        assert reply.status_code == 200, f"{method.upper()} {path}: {reply.status_code} {reply.text[:300]}"
        wrong = problems(document, schema, reply.json())
        assert not wrong, f"{method.upper()} {path} answers outside its schema:\n" + "\n".join(wrong[:10])
        checked.append(path)
    assert {"/api/jobs/{job}", "/api/trials/{trial}/behavior", "/api/compare", "/api/import/otlp"} <= set(checked)


def _otlp_json(message) -> bytes:
    """A request in OTLP/JSON: the protobuf JSON mapping, but trace and span ids in hex, not base64."""

    def ids_in_hex(value):
        if isinstance(value, dict):
            return {
                k: base64.b64decode(v).hex() if k in ("traceId", "spanId", "parentSpanId") else ids_in_hex(v)
                for k, v in value.items()
            }
        return [ids_in_hex(v) for v in value] if isinstance(value, list) else value

    return json.dumps(ids_in_hex(json_format.MessageToDict(message))).encode()


def _exports(service: str) -> dict[str, tuple[str, bytes]]:
    """Per OTLP route, (the partialSuccess counter, an OTLP/JSON request of two items, one of them invalid)."""
    traces = traces_request(service, 2)
    traces.resource_spans[0].scope_spans[0].spans[1].trace_id = b"\x01\x02\x03"
    logs = logs_request(service, 2)
    logs.resource_logs[0].scope_logs[0].log_records[1].trace_id = b"\x01\x02\x03"
    metrics = ExportMetricsServiceRequest()
    resource = metrics.resource_metrics.add()
    resource.resource.attributes.add(key="service.name").value.string_value = service
    gauge = resource.scope_metrics.add().metrics.add(name="queue.depth").gauge
    gauge.data_points.add(time_unix_nano=1_700_000_000_000_000_000, as_int=3)
    gauge.data_points.add(time_unix_nano=5_000_000_000_000_000_000, as_int=4)  # after 2106: rejected
    return {
        path: (counter, _otlp_json(request))
        for path, counter, request in (
            ("/v1/traces", "rejectedSpans", traces),
            ("/v1/logs", "rejectedLogRecords", logs),
            ("/v1/metrics", "rejectedDataPoints", metrics),
        )
    }


def test_the_receivers_answers_hold_to_their_schemas(server, document, unique):
    """An OTLP/JSON export taken in part answers its partialSuccess as OTLP/JSON writes it, and MLflow's
    clients get the experiment of a job; each as its schema in /openapi.json says."""
    schemas = {path: schema for _, path, schema in json_routes(document)}
    for path, (counter, body) in _exports(unique).items():
        reply = httpx.post(
            server.http_url + path, content=body, headers={"content-type": "application/json"}, timeout=300
        )
        assert reply.status_code == 200, reply.text
        assert reply.json()["partialSuccess"][counter] == "1", reply.text
        assert not problems(document, schemas[path], reply.json()), path
    job = f"{unique}-job's"
    for path, body in (
        ("/api/2.0/mlflow/experiments/search", {"filter": f"name = '{job.replace("'", "''")}'"}),
        ("/api/2.0/mlflow/experiments/create", {"name": job}),
    ):
        reply = httpx.post(server.http_url + path, json=body, timeout=300)
        assert reply.status_code == 200, reply.text
        assert not problems(document, schemas[path], reply.json()), path
        experiment = reply.json()["experiments"][0] if "experiments" in reply.json() else reply.json()
        assert urllib.parse.unquote(experiment["experiment_id"]) == job  # the experiment is the job


def test_a_page_of_jobs_and_of_trials_holds_to_its_schema(server, document, jobs):
    """The pages with their rows (the walk above may find the session's first page of jobs holding others)."""
    job, _ = jobs
    schemas = {path: schema for _, path, schema in json_routes(document)}
    for path, params in (("/api/jobs", {"limit": "200"}), (f"/api/jobs/{job.job}/trials", {})):
        page = httpx.get(server.http_url + path, params=params, timeout=300).json()
        assert page["items"]
        key = "/api/jobs" if path == "/api/jobs" else "/api/jobs/{job}/trials"
        assert not problems(document, schemas[key], page)


def test_refusals_are_one_line_with_their_status(server):
    """The API's error map: each refusal its status and a `detail` saying what to pass instead."""
    for path, params, status in (
        ("/api/jobs/no-such-job", {}, 404),
        ("/api/spans", {"kind": "nope"}, 400),
        ("/api/jobs", {"cursor": "x"}, 400),
        ("/api/trials/no-such-trial", {}, 404),
    ):
        reply = httpx.get(server.http_url + path, params=params, timeout=300)
        assert reply.status_code == status, (path, reply.text)
        assert isinstance(reply.json()["detail"], str) and reply.json()["detail"], path
