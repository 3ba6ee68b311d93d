"""A retried identical request is stored once."""

import httpx

from harborlight.settings import Settings
from tests.support.otlp import traces_request
from tests.support.servers import InProcessServer


def test_the_same_request_sent_twice_is_stored_once(server, unique):
    body = traces_request(unique, 4).SerializeToString()
    for _ in range(2):
        answer = httpx.post(
            f"{server.http_url}/v1/traces", content=body, headers={"content-type": "application/x-protobuf"}
        )
        assert answer.status_code == 200
    assert server.sql("SELECT count() FROM otel_traces WHERE ServiceName = {s:String}", s=unique)[0][0] == 4


def test_different_requests_with_equal_spans_are_both_stored(server, unique):
    first = traces_request(unique, 2)
    second = traces_request(unique, 2)
    for request in (first, second):
        httpx.post(
            f"{server.http_url}/v1/traces",
            content=request.SerializeToString(),
            headers={"content-type": "application/x-protobuf"},
        )
    assert server.sql("SELECT count() FROM otel_traces WHERE ServiceName = {s:String}", s=unique)[0][0] == 4


def test_a_request_sent_again_to_another_receiver_of_the_same_store_is_stored_once(server, store_dir, unique):
    """Two receivers on one store, each with its own write-ahead log, as behind a load balancer: an exporter
    whose acknowledgement from the first was lost sends the same bytes to the second, which has never seen
    them. The store's own record of stored requests recognises it (it was stored twice before)."""
    other = InProcessServer(Settings(data_dir=store_dir)).start()
    try:
        body = traces_request(unique, 4).SerializeToString()
        for receiver in (server, other):
            answer = httpx.post(
                f"{receiver.http_url}/v1/traces", content=body, headers={"content-type": "application/x-protobuf"}
            )
            assert answer.status_code == 200
            receiver.caught_up()
        assert other.sql("SELECT count() FROM otel_traces WHERE ServiceName = {s:String}", s=unique)[0][0] == 4
    finally:
        other.stop()
