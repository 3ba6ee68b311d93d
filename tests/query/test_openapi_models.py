"""OpenAPI names a schema for every JSON route, and what a real server answers holds to it.

Every route of /openapi.json whose 200 answer is JSON is called on the session server with real data (two
streamed jobs: harness spans, agent spans, Claude Code events; a recorded Claude Code session uploaded to
POST /api/import/otlp), and each answer is validated against the schema the document gives for it. A route
added without a schema, or a field an answer carries that its model does not name, fails here."""

import uuid
from pathlib import Path

import httpx
import pytest
from jsonschema import Draft202012Validator

from tests.query.job_stream import stream_job

# The receivers' routes (harborlight/ingest/): OTLP's own answers (protobuf or OTLP/JSON) and MLflow's, not the
# query API's models.
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
        if "application/json" in operation["responses"].get("200", {}).get("content", {}) and path not in RECEIVERS
    ]


def problems(document: dict, schema: dict, answer: object) -> list[str]:
    validator = Draft202012Validator({**schema, "components": document["components"]})
    return [f"{'/'.join(map(str, e.absolute_path))}: {e.message[:300]}" for e in validator.iter_errors(answer)]


def test_every_json_route_names_a_schema(document):
    routes = json_routes(document)
    assert len(routes) >= 15
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
        reply = _call(server, jobs, method, path)
        assert reply.status_code == 200, f"{method.upper()} {path}: {reply.status_code} {reply.text[:300]}"
        wrong = problems(document, schema, reply.json())
        assert not wrong, f"{method.upper()} {path} answers outside its schema:\n" + "\n".join(wrong[:10])
        checked.append(path)
    assert {"/api/jobs/{job}", "/api/trials/{trial}/behavior", "/api/compare", "/api/import/otlp"} <= set(checked)


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
