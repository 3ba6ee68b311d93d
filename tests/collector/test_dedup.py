"""A retried identical request is stored once."""

import httpx

from tests.support.otlp import traces_request


def test_the_same_request_sent_twice_is_stored_once(server, unique):
    body = traces_request(unique, 4).SerializeToString()
    for _ in range(2):
        answer = httpx.post(f"{server.http_url}/v1/traces", content=body, headers={"content-type": "application/x-protobuf"})
        assert answer.status_code == 200
    assert server.sql("SELECT count() FROM otel_traces WHERE ServiceName = {s:String}", s=unique)[0][0] == 4


def test_different_requests_with_equal_spans_are_both_stored(server, unique):
    first = traces_request(unique, 2)
    second = traces_request(unique, 2)
    for request in (first, second):
        httpx.post(f"{server.http_url}/v1/traces", content=request.SerializeToString(),
                   headers={"content-type": "application/x-protobuf"})
    assert server.sql("SELECT count() FROM otel_traces WHERE ServiceName = {s:String}", s=unique)[0][0] == 4
