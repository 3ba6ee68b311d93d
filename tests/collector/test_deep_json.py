"""JSON nested 200,000 deep is refused in one line wherever it comes in: an OTLP/HTTP JSON export
request answers 400 with the reason (the OTLP/HTTP specification's answer to a request that cannot be
decoded), gzip or not; a cursor answers 400."""

import base64
import gzip

import httpx
import pytest

DEEP = 200_000


def _nested_array(depth: int) -> bytes:
    return b"[" * depth + b"]" * depth


def _nested_value(depth: int) -> bytes:
    """An attribute value of arrays in arrays, as OTLP/JSON writes them."""
    return b'{"arrayValue":{"values":[' * depth + b"]}}" * depth


BODIES = {
    "/v1/traces": [
        b'{"resourceSpans":' + _nested_array(DEEP) + b"}",
        b'{"resourceSpans":[{"resource":{"attributes":[{"key":"a","value":'
        + _nested_value(DEEP)
        + b'}]},"scopeSpans":[]}]}',
    ],
    "/v1/logs": [b'{"resourceLogs":' + _nested_array(DEEP) + b"}"],
    "/v1/metrics": [b'{"resourceMetrics":' + _nested_array(DEEP) + b"}"],
}


@pytest.mark.parametrize("path,body", [(p, b) for p, bodies in BODIES.items() for b in bodies])
@pytest.mark.parametrize("gzipped", [False, True])
def test_an_otlp_json_request_nested_too_deep_is_400(server, path, body, gzipped):
    headers = {"content-type": "application/json"}
    if gzipped:
        body, headers["content-encoding"] = gzip.compress(body), "gzip"
    reply = httpx.post(f"{server.http_url}{path}", content=body, headers=headers, timeout=120)
    assert reply.status_code == 400, reply.text[:300]
    assert "deep" in reply.text and "Traceback" not in reply.text


def test_a_cursor_nested_too_deep_is_400(server):
    cursor = base64.urlsafe_b64encode(_nested_array(4_000)).decode().rstrip("=")
    reply = httpx.get(f"{server.http_url}/api/jobs", params={"cursor": cursor}, timeout=120)
    assert reply.status_code == 400, reply.text[:300]
    assert "cursor" in reply.json()["detail"]


@pytest.mark.parametrize("route", ["search", "create"])
def test_an_mlflow_request_nested_too_deep_is_400_in_mlflow_s_error_shape(server, route):
    body = b'{"name":' + _nested_array(DEEP) + b"}"
    reply = httpx.post(
        f"{server.http_url}/api/2.0/mlflow/experiments/{route}",
        content=body,
        headers={"content-type": "application/json"},
        timeout=120,
    )
    assert reply.status_code == 400, reply.text[:300]
    assert reply.json()["error_code"] == "MALFORMED_REQUEST" and "deep" in reply.json()["message"]
