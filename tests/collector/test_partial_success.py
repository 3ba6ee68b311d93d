"""Invalid items are rejected one by one with a reason; the valid rest of the request is stored."""

import grpc
import httpx
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceResponse
from opentelemetry.proto.collector.trace.v1.trace_service_pb2_grpc import TraceServiceStub

from tests.support.otlp import logs_request, traces_request


def _count(server, service: str, table: str = "otel_traces") -> int:
    return server.sql(f"SELECT count() FROM {table} WHERE ServiceName = {{s:String}}", s=service)[0][0]


def test_one_bad_trace_id_rejects_that_span_only(server, unique):
    request = traces_request(unique, 5)
    request.resource_spans[0].scope_spans[0].spans[3].trace_id = b"\x01\x02\x03"
    with grpc.insecure_channel(server.grpc_endpoint) as channel:
        answer = TraceServiceStub(channel).Export(request)
    assert answer.partial_success.rejected_spans == 1
    assert "trace_id must be 16 bytes, got 3" in answer.partial_success.error_message
    assert _count(server, unique) == 4


def test_each_kind_of_bad_item_is_named_in_the_reason(server, unique):
    request = traces_request(unique, 6)
    spans = request.resource_spans[0].scope_spans[0].spans
    spans[1].span_id = b"\x00" * 8
    spans[2].parent_span_id = b"\x01"
    spans[3].start_time_unix_nano = 0
    spans[4].end_time_unix_nano = spans[4].start_time_unix_nano - 1
    answer = httpx.post(
        f"{server.http_url}/v1/traces",
        content=request.SerializeToString(),
        headers={"content-type": "application/x-protobuf"},
    )
    assert answer.status_code == 200
    parsed = ExportTraceServiceResponse.FromString(answer.content)
    assert parsed.partial_success.rejected_spans == 4
    message = parsed.partial_success.error_message
    for reason in (
        "span_id must not be all zeros",
        "parent_span_id must be 8 bytes, got 1",
        "start_time_unix_nano is missing",
        "end_time_unix_nano is before start_time_unix_nano",
    ):
        assert reason in message
    assert _count(server, unique) == 2


def test_invalid_utf8_rejects_only_the_span_that_carries_it(server, unique):
    request = traces_request(unique, 3)
    body = request.SerializeToString()
    # "step 1" -> "step \xff": same length, so the protobuf framing stays intact.
    body = body.replace(b"step 1", b"step \xff", 1)
    answer = httpx.post(
        f"{server.http_url}/v1/traces", content=body, headers={"content-type": "application/x-protobuf"}
    )
    parsed = ExportTraceServiceResponse.FromString(answer.content)
    assert parsed.partial_success.rejected_spans == 1
    assert "name is not valid UTF-8" in parsed.partial_success.error_message
    assert server.sql(
        "SELECT SpanName FROM otel_traces WHERE ServiceName = {s:String} ORDER BY SpanName", s=unique
    ) == [("step 0",), ("step 2",)]


def test_a_body_that_is_not_otlp_is_refused_with_a_reason(server):
    answer = httpx.post(
        f"{server.http_url}/v1/traces",
        content=b"\xff\xff\xff garbage",
        headers={"content-type": "application/x-protobuf"},
    )
    assert answer.status_code == 400
    with grpc.insecure_channel(server.grpc_endpoint) as channel:
        stub = channel.unary_unary("/opentelemetry.proto.collector.trace.v1.TraceService/Export")
        try:
            stub(b"\xff\xff\xff garbage")
            raise AssertionError("expected INVALID_ARGUMENT")
        except grpc.RpcError as exc:
            assert exc.code() == grpc.StatusCode.INVALID_ARGUMENT
            assert "not a valid OTLP ExportTraceServiceRequest" in exc.details()


def test_bad_json_and_unknown_content_type_get_400_with_a_message(server):
    bad_json = httpx.post(
        f"{server.http_url}/v1/logs", content=b"{not json", headers={"content-type": "application/json"}
    )
    assert bad_json.status_code == 400 and "not valid JSON" in bad_json.json()["message"]
    wrong_type = httpx.post(f"{server.http_url}/v1/logs", content=b"x", headers={"content-type": "text/plain"})
    assert wrong_type.status_code == 400


def test_gzip_bodies_are_accepted_and_bad_log_ids_rejected(server, unique):
    import gzip

    request = logs_request(unique, 3)
    request.resource_logs[0].scope_logs[0].log_records[0].span_id = b"\x01\x02"
    answer = httpx.post(
        f"{server.http_url}/v1/logs",
        content=gzip.compress(request.SerializeToString()),
        headers={"content-type": "application/x-protobuf", "content-encoding": "gzip"},
    )
    assert answer.status_code == 200
    assert _count(server, unique, "otel_logs") == 2
