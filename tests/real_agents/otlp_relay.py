"""An OTLP relay between an agent and harborlight that keeps every export request as it arrived.

It listens for OTLP/gRPC and OTLP/HTTP on 127.0.0.1:0, keeps each request as one OTLP/JSON line — the
OpenTelemetry Collector file exporter's format (hex ids, camelCase, enums as numbers, 64-bit integers as
strings), which `harborlight import otlp` reads — acknowledges it, and passes its bytes on unchanged to
harborlight over the same protocol. Acknowledging on receipt keeps the agent's exporter independent of
how fast the store commits on a loaded machine: an agent gives its exporter a few seconds at exit and
drops what is still queued (measured: Claude Code over HTTP lost two thirds of a run's records behind
1-2 s commits). harborlight's own refusals are collected in `failures` instead.
"""

import base64
import gzip
import json
import threading
from concurrent.futures import Future, ThreadPoolExecutor, wait
from http.server import BaseHTTPRequestHandler

import grpc
import httpx
from google.protobuf import json_format

from harborlight.ingest.otlp_json import json_to_protobuf
from harborlight.ingest.signals import SIGNALS, SignalSpec
from tests.real_agents.providers.http_fake import QuietHTTPServer

_ID_KEYS = {"traceId", "spanId", "parentSpanId"}


def _hex_ids(node) -> None:
    if isinstance(node, dict):
        for key, value in node.items():
            if key in _ID_KEYS and isinstance(value, str):
                node[key] = base64.b64decode(value).hex()
            else:
                _hex_ids(value)
    elif isinstance(node, list):
        for value in node:
            _hex_ids(value)


def json_line(spec: SignalSpec, body: bytes) -> str:
    """One export request (protobuf bytes) as the Collector file exporter's JSON line."""
    document = json_format.MessageToDict(spec.request.FromString(body), use_integers_for_enums=True)
    _hex_ids(document)
    return json.dumps(document, separators=(",", ":"))


class OtlpRelay:
    def __init__(self, grpc_target: str, http_url: str) -> None:
        self.lines: list[str] = []
        self.failures: list[str] = []  # requests harborlight refused, with its answer
        self._lock = threading.Lock()
        self._forwards: list[Future] = []
        self._http_url = http_url
        self._channel = grpc.insecure_channel(grpc_target)
        self._forwarder = ThreadPoolExecutor(max_workers=4)
        self._grpc = grpc.server(ThreadPoolExecutor(max_workers=8))
        self._grpc.add_generic_rpc_handlers((_GrpcHandlers(self),))
        self.grpc_port = self._grpc.add_insecure_port("127.0.0.1:0")
        self._http = QuietHTTPServer(("127.0.0.1", 0), _http_handler(self))
        self._http_thread = threading.Thread(target=self._http.serve_forever, daemon=True)

    @property
    def grpc_endpoint(self) -> str:
        return f"http://127.0.0.1:{self.grpc_port}"

    @property
    def http_endpoint(self) -> str:
        return f"http://127.0.0.1:{self._http.server_address[1]}"

    def __enter__(self) -> "OtlpRelay":
        self._grpc.start()
        self._http_thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._grpc.stop(grace=None)
        self._http.shutdown()
        self._http.server_close()
        self._forwarder.shutdown(wait=True)
        self._channel.close()

    def wait_stored(self, timeout: float = 120) -> None:
        """Returns once harborlight has answered every request received so far (the agent must have exited)."""
        with self._lock:
            forwards = list(self._forwards)
        _, pending = wait(forwards, timeout)
        if pending:
            raise TimeoutError(f"harborlight has not answered {len(pending)} OTLP requests after {timeout} s")

    def keep(self, spec: SignalSpec, protobuf: bytes, forward) -> None:
        """Keeps the request's line and forwards it (a callable returning harborlight's refusal or None)."""
        line = json_line(spec, protobuf)
        with self._lock:
            self.lines.append(line)
            self._forwards.append(self._forwarder.submit(self._forward, forward))

    def _forward(self, forward) -> None:
        try:
            refused = forward()
        except Exception as exc:  # harborlight unreachable or broken: the test must hear of it
            refused = repr(exc)
        if refused:
            with self._lock:
                self.failures.append(refused)

    def from_grpc(self, spec: SignalSpec, body: bytes) -> bytes:
        def forward() -> str | None:
            try:
                self._channel.unary_unary(spec.grpc_method)(body, timeout=60)
            except grpc.RpcError as exc:
                return f"{spec.signal}: {exc.code()} {exc.details()}"
            return None

        self.keep(spec, body, forward)
        return spec.response().SerializeToString()

    def from_http(self, spec: SignalSpec, body: bytes, headers: dict[str, str]) -> tuple[str, bytes]:
        raw = gzip.decompress(body) if headers.get("content-encoding") == "gzip" else body
        is_json = headers.get("content-type", "").startswith("application/json")
        passed = {k: v for k, v in headers.items() if k in ("content-type", "content-encoding")}

        def forward() -> str | None:
            answer = httpx.post(self._http_url + spec.http_path, content=body, headers=passed, timeout=60)
            return (
                None if answer.status_code == 200 else f"{spec.signal}: HTTP {answer.status_code} {answer.text[:300]}"
            )

        self.keep(spec, json_to_protobuf(spec, raw) if is_json else raw, forward)
        if is_json:
            return "application/json", b"{}"
        return "application/x-protobuf", spec.response().SerializeToString()


class _GrpcHandlers(grpc.GenericRpcHandler):
    def __init__(self, relay: OtlpRelay) -> None:
        self._by_method = {
            spec.grpc_method: grpc.unary_unary_rpc_method_handler(
                lambda body, context, spec=spec: relay.from_grpc(spec, body)
            )
            for spec in SIGNALS.values()
        }

    def service(self, handler_call_details):
        return self._by_method.get(handler_call_details.method)


def _http_handler(relay: OtlpRelay) -> type[BaseHTTPRequestHandler]:
    by_path = {spec.http_path: spec for spec in SIGNALS.values()}

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format, *args) -> None:
            pass

        def _body(self) -> bytes:
            if self.headers.get("transfer-encoding", "").lower() != "chunked":
                return self.rfile.read(int(self.headers.get("content-length") or 0))
            chunks = []
            while size := int(self.rfile.readline().split(b";")[0], 16):
                chunks.append(self.rfile.read(size))
                self.rfile.readline()
            self.rfile.readline()
            return b"".join(chunks)

        def do_POST(self) -> None:
            body = self._body()
            spec = by_path.get(self.path.split("?")[0])
            if spec is None:
                content_type, payload, status = "text/plain", b"not an OTLP path", 404
            else:
                content_type, payload = relay.from_http(spec, body, {k.lower(): v for k, v in self.headers.items()})
                status = 200
            self.send_response(status)
            self.send_header("content-type", content_type)
            self.send_header("content-length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

    return Handler
