"""Fuzzing the OTLP decoders and the HTTP endpoints: no crash, no hang, and every bad input gets a
4xx / INVALID_ARGUMENT with a reason."""

import gzip
import json

import httpx
from google.rpc import status_pb2
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from harborlight.ingest.errors import http_status
from harborlight.ingest.otlp_json import json_to_protobuf
from harborlight.ingest.signals import SIGNALS
from harborlight.ingest.validate import check_request
from harborlight.write_errors import IngestError
from tests.support.otlp import logs_request, traces_request

SPECS = list(SIGNALS.values())
FUZZ = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
SEEDS = [traces_request("fuzz", 3).SerializeToString(), logs_request("fuzz", 3).SerializeToString()]


def _decodes_or_refuses(spec, body: bytes) -> None:
    try:
        checked = check_request(spec, body)
    except IngestError as exc:
        assert http_status(exc) in (400, 413) and str(exc)
        return
    assert checked.accepted >= 0 and checked.rejected >= 0
    # What goes to the engine is well-formed and clean: checking it again rejects nothing.
    again = check_request(spec, checked.payload)
    assert (again.accepted, again.rejected) == (checked.accepted, 0)


@FUZZ
@given(spec=st.sampled_from(SPECS), body=st.binary(max_size=2048))
def test_random_bytes_never_crash_the_protobuf_decoder(spec, body):
    _decodes_or_refuses(spec, body)


@FUZZ
@given(
    seed=st.sampled_from(SEEDS),
    spec=st.sampled_from(SPECS),
    edits=st.lists(st.tuples(st.integers(min_value=0), st.integers(min_value=0, max_value=255)), max_size=8),
)
def test_mutated_requests_are_decoded_item_by_item_or_refused(seed, spec, edits):
    body = bytearray(seed)
    for position, value in edits:
        body[position % len(body)] = value
    _decodes_or_refuses(spec, bytes(body))


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda children: (
        st.lists(children, max_size=4)
        | st.dictionaries(
            st.sampled_from(
                [
                    "resourceSpans",
                    "scopeSpans",
                    "spans",
                    "traceId",
                    "spanId",
                    "name",
                    "attributes",
                    "key",
                    "value",
                    "stringValue",
                    "intValue",
                    "resourceLogs",
                    "logRecords",
                    "body",
                ]
            )
            | st.text(max_size=8),
            children,
            max_size=4,
        )
    ),
    max_leaves=20,
)


@FUZZ
@given(spec=st.sampled_from(SPECS), document=_JSON)
def test_random_json_is_converted_or_refused_with_a_reason(spec, document):
    try:
        body = json_to_protobuf(spec, json.dumps(document).encode())
    except IngestError as exc:
        assert http_status(exc) == 400 and str(exc)
        return
    _decodes_or_refuses(spec, body)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    path=st.sampled_from(["/v1/traces", "/v1/logs", "/v1/metrics"]),
    content_type=st.sampled_from(["application/x-protobuf", "application/json", "text/plain", ""]),
    encoding=st.sampled_from(["", "gzip", "br"]),
    body=st.binary(max_size=512) | st.sampled_from(SEEDS),
)
def test_the_http_endpoints_answer_bad_input_with_4xx_and_a_reason(server, path, content_type, encoding, body):
    payload = gzip.compress(body) if encoding == "gzip" else body
    headers = {k: v for k, v in {"content-type": content_type, "content-encoding": encoding}.items() if v}
    answer = httpx.post(f"{server.http_url}{path}", content=payload, headers=headers, timeout=30)
    assert answer.status_code in (200, 400, 413), answer.text
    if answer.status_code != 200:
        if answer.headers["content-type"] == "application/json":
            assert answer.json()["message"]
        else:
            assert status_pb2.Status.FromString(answer.content).message
