"""OTLP/JSON to protobuf bytes, so JSON requests take the same path as protobuf ones.

OTLP/JSON differs from protobuf's canonical JSON in one way that matters here: trace and span ids are
hex strings, not base64. Ids that are not hex are kept as their raw characters, which have the wrong
length, so the item is rejected with a reason like any other bad id.
"""

import base64
import json
from typing import Any

from google.protobuf import json_format

from harborlight.ingest.signals import SignalSpec
from harborlight.write_errors import InvalidRequest

_ID_KEYS = {"traceId", "spanId", "parentSpanId", "trace_id", "span_id", "parent_span_id"}


def _id_to_base64(value: Any) -> Any:
    if not isinstance(value, str):
        return value
    try:
        raw = bytes.fromhex(value)
    except ValueError:
        raw = value.encode("utf-8", "surrogatepass")
    return base64.b64encode(raw).decode("ascii")


def _fix_ids(node: Any) -> None:
    if isinstance(node, dict):
        for key, value in node.items():
            if key in _ID_KEYS:
                node[key] = _id_to_base64(value)
            else:
                _fix_ids(value)
    elif isinstance(node, list):
        for value in node:
            _fix_ids(value)


def json_to_protobuf(spec: SignalSpec, body: bytes) -> bytes:
    try:
        document = json.loads(body)
        if not isinstance(document, dict):
            raise InvalidRequest(f"an OTLP/JSON {spec.request.DESCRIPTOR.name} must be a JSON object")
        _fix_ids(document)
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise InvalidRequest(f"request body is not valid JSON: {exc}") from exc
    except RecursionError:  # no OTLP request nests this deep; the protobuf parser stops at 100 levels
        raise InvalidRequest("request body nests JSON too deeply to be an OTLP request") from None
    try:
        message = json_format.ParseDict(document, spec.request(), ignore_unknown_fields=True)
    except (json_format.ParseError, ValueError, TypeError, RecursionError) as exc:
        raise InvalidRequest(f"not a valid OTLP/JSON {spec.request.DESCRIPTOR.name}: {exc}") from exc
    serialized: bytes = message.SerializeToString()
    return serialized
