"""Test-only stand-in for ClickHouse's HTTP interface, backed by chDB, so the server path (clickhouse-connect
over HTTP) can be tested where no ClickHouse server can be installed. Never imported by the product.

    python -m tests.support.clickhouse_standin --port P --data-dir D [--config-file C.xml]

It speaks what clickhouse-connect 1.12 (compress=False) uses: `/ping`; a statement in `?query=`, in the body, or
both (ClickHouse appends the body to `?query=`); `database=`, `default_format=`, `query_id=`, `param_*` bound
values (in the URL, or with the statement as multipart/form-data fields when they are long), and every other
URL parameter as a setting of that one request; `INSERT ... FORMAT X` with its data in
the body (after the statement, or all of it when the statement is in `?query=`), staged in a temp file and read
with `FROM INFILE`, or with `file(tmp, X, structure)` in place of `input(structure)`, which chDB lacks. Errors
are HTTP 500 with `X-ClickHouse-Exception-Code` and ClickHouse's message. One chDB engine serves the process;
each request runs on its own connection (so its SET and USE stay its own), one at a time. Native answers are
written at the request's `client_protocol_version`, as a ClickHouse server writes them; chDB cannot, so the
stand-in frames them with harborlight/sqlport/clickhouse_native.py (whose bytes tests/clickhouse_http checks
with a client written from clickhouse-go): what the server-mode tests check is that the revision reaches the
server.
"""

import argparse
import gzip
import json
import os
import re
import tempfile
import threading
import time
import uuid
from email.parser import BytesParser
from email.policy import HTTP
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qsl, urlsplit

import chdb

from harborlight.sqlport.clickhouse_native import reframe

# URL parameters that are not settings (transport, session and identity parameters).
NOT_SETTINGS = {
    "query",
    "database",
    "default_format",
    "query_id",
    "session_id",
    "session_timeout",
    "session_check",
    "user",
    "password",
    "quota_key",
    "compress",
    "decompress",
    "buffer_size",
    "wait_end_of_query",
    "client_protocol_version",
    "role",
    "send_progress_in_http_headers",
    "http_headers_progress_interval_ms",
    "enable_http_compression",
    "cancel_http_readonly_queries_on_client_close",
}
_INSERT_HEAD = re.compile(rb"^\s*INSERT\b.*?\bFORMAT\s+\w+[ \t]*(\r?\n)?", re.I | re.S)
_TRAILING_FORMAT = re.compile(r"\bFORMAT\s+(\w+)\s*;?\s*$", re.I)
_INPUT = re.compile(r"\binput\s*\(\s*('(?:[^'\\]|\\.)*')\s*\)", re.I)
_RESULT_SET = re.compile(r"^\s*(SELECT|WITH|SHOW|DESC|DESCRIBE|EXISTS|EXPLAIN|CHECK)\b", re.I)
_CODE = re.compile(r"Code:\s*(\d+)")


def _form_fields(content_type: str, body: bytes) -> dict[str, str]:
    """The fields of a multipart/form-data body: clickhouse-connect sends the statement and its bound values so
    (`query`, `param_*`) when they would not fit in the URL, as ClickHouse's HTTP interface accepts."""
    message = BytesParser(policy=HTTP).parsebytes(f"Content-Type: {content_type}\r\n\r\n".encode() + body)
    return {
        part.get_param("name", header="content-disposition"): part.get_payload(decode=True).decode()
        for part in message.iter_parts()
    }


def quote(value: str) -> str:
    return "'" + value.replace("\\", "\\\\").replace("'", "\\'") + "'"


class Failure(Exception):
    def __init__(self, code: int, message: str) -> None:
        super().__init__(message)
        self.code = code


class Engine:
    def __init__(self, data_dir: str, config_file: str | None = None) -> None:
        # The engine's own configuration (remote_servers, say) rides on the connection string.
        self.data_dir = f"{data_dir}?config-file={config_file}" if config_file else data_dir
        self.spool = tempfile.mkdtemp(prefix="standin-spool-")
        self.lock = threading.Lock()
        self.root = chdb.connect(self.data_dir)  # holds the engine open for the life of the process
        self.version, self.timezone = self.root.query("SELECT version(), timezone()", "TSV").bytes().decode().split()

    def run(self, sql: str, fmt: str, settings: dict, params: dict, database: str | None):
        with self.lock:
            conn = chdb.connect(self.data_dir)
            try:
                if database:
                    conn.query(f"USE `{database.replace('`', '``')}`")
                if settings:
                    conn.query("SET " + ", ".join(f"{k} = {quote(v)}" for k, v in settings.items()))
                return conn.query(sql, fmt, params=params or None)
            except Exception as exc:  # chDB raises ChdbError (or RuntimeError) carrying ClickHouse's message
                message = str(exc)
                message = message[message.find("Code: ") :] if "Code: " in message else message
                code = _CODE.search(message)
                raise Failure(int(code.group(1)) if code else 1002, f"{message} (version {self.version})") from None
            finally:
                conn.close()

    def execute(self, params: dict[str, str], body: bytes) -> tuple[bytes, dict[str, str]]:
        query = params.get("query", "")
        fmt = params.get("default_format", "TabSeparated")
        bound = {k[6:]: v for k, v in params.items() if k.startswith("param_")}
        settings = {k: v for k, v in params.items() if k not in NOT_SETTINGS and not k.startswith("param_")}
        data = None
        if query and body and _INSERT_HEAD.match(query.encode()) and _TRAILING_FORMAT.search(query):
            text, data = query, body
        elif query:
            text = query + ("\n" + body.decode() if body else "")
        elif (head := _INSERT_HEAD.match(body)) and body[head.end() :]:
            text, data = body[: head.end()].decode(), body[head.end() :]
        else:
            text = body.decode()
        if not text.strip():
            raise Failure(62, "Code: 62. DB::Exception: Empty query. (SYNTAX_ERROR)")
        staged = None
        try:
            if data is not None:
                fd, staged = tempfile.mkstemp(dir=self.spool)
                with os.fdopen(fd, "wb") as f:
                    f.write(data)
                text = self._read_staged(text, staged)
            started = time.monotonic()
            result = self.run(text, fmt, settings, bound, params.get("database"))
        finally:
            if staged:
                os.unlink(staged)
        out = result.bytes() if result is not None else b""
        trailing = _TRAILING_FORMAT.search(text)
        answered = trailing.group(1) if trailing else fmt
        if answered.lower() == "native" and params.get("client_protocol_version", "0").isdigit():
            out = reframe(out, int(params.get("client_protocol_version", "0")))
        summary = (
            {
                "read_rows": str(result.rows_read()),
                "read_bytes": str(result.bytes_read()),
                "written_rows": str(result.rows_written()),
                "written_bytes": str(result.bytes_written()),
                "elapsed_ns": str(int((time.monotonic() - started) * 1e9)),
            }
            if result is not None
            else {}
        )
        headers = {"X-ClickHouse-Summary": json.dumps(summary)}
        if out or _RESULT_SET.match(text):  # ClickHouse names the format of every result set, even an empty one
            headers["X-ClickHouse-Format"] = answered
        return out, headers

    @staticmethod
    def _read_staged(text: str, path: str) -> str:
        """The statement rewritten to read its data from `path`: file() for input(), else FROM INFILE."""
        trailing = _TRAILING_FORMAT.search(text)
        fmt, head = trailing.group(1), text[: trailing.start()]
        if _INPUT.search(head):
            return _INPUT.sub(lambda m: f"file({quote(path)}, {quote(fmt)}, {m.group(1)})", head, count=1)
        return f"{head} FROM INFILE {quote(path)} FORMAT {fmt}"


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    engine: Engine

    def log_message(self, *args) -> None:
        pass

    def do_GET(self) -> None:
        self._handle(b"")

    def do_POST(self) -> None:
        self._handle(self._body())

    def _body(self) -> bytes:
        if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
            parts = []
            while size := int(self.rfile.readline().split(b";")[0], 16):
                parts.append(self.rfile.read(size))
                self.rfile.readline()
            while self.rfile.readline() not in (b"\r\n", b"\n", b""):  # trailers
                pass
            return b"".join(parts)
        return self.rfile.read(int(self.headers.get("Content-Length") or 0))

    def _handle(self, body: bytes) -> None:
        url = urlsplit(self.path)
        if url.path.rstrip("/") == "/ping":
            return self._send(200, b"Ok.\n", {})
        params = dict(parse_qsl(url.query, keep_blank_values=True))
        query_id = params.get("query_id") or str(uuid.uuid4())
        common = {"X-ClickHouse-Query-Id": query_id, "X-ClickHouse-Timezone": self.engine.timezone}
        try:
            encoding = self.headers.get("Content-Encoding", "identity").lower()
            if encoding not in ("identity", "gzip"):
                raise Failure(1, f"Code: 1. DB::Exception: the stand-in cannot decode Content-Encoding {encoding}")
            body = gzip.decompress(body) if encoding == "gzip" else body
            if self.headers.get_content_type() == "multipart/form-data":
                params, body = {**params, **_form_fields(self.headers["Content-Type"], body)}, b""
            out, headers = self.engine.execute(params, body)
        except Failure as exc:
            return self._send(500, f"{exc}\n".encode(), {**common, "X-ClickHouse-Exception-Code": str(exc.code)})
        except Exception as exc:  # a bug here must reach the test as an error, not a hang
            return self._send(
                500,
                f"Code: 1001. DB::Exception: stand-in: {exc!r}\n".encode(),
                {**common, "X-ClickHouse-Exception-Code": "1001"},
            )
        self._send(200, out, {**common, **headers})

    def _send(self, status: int, body: bytes, headers: dict[str, str]) -> None:
        self.send_response(status)
        self.send_header("Content-Type", "text/plain; charset=UTF-8")
        self.send_header("Content-Length", str(len(body)))
        for name, value in headers.items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(body)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--data-dir", required=True)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--config-file", default=None, help="a ClickHouse server configuration for the engine")
    args = parser.parse_args()
    os.makedirs(args.data_dir, exist_ok=True)
    Handler.engine = Engine(os.path.abspath(args.data_dir), args.config_file)
    server = ThreadingHTTPServer((args.host, args.port), Handler)
    server.daemon_threads = True
    print(f"listening on {args.host}:{args.port}", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
