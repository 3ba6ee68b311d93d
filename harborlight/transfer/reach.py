"""How a client of a running harborlight says it could not reach it: one wording everywhere, the URL, the
reason (never empty), and a hint when the address is a likely slip (the gRPC port, an /api suffix)."""

import http.client
from urllib.parse import urlsplit

import httpx

GRPC_PORT = 4317
# What an HTTP/1.1 client meets at an HTTP/2-only (gRPC) port
_OTHER_PROTOCOL = (httpx.RemoteProtocolError, http.client.BadStatusLine, http.client.RemoteDisconnected)


def _hint(server: str, exc: BaseException | None = None) -> str:
    parts = urlsplit(server if "://" in server else f"http://{server}")
    if parts.port == GRPC_PORT or isinstance(exc, _OTHER_PROTOCOL):
        return (
            "; that looks like the OTLP/gRPC port: the API answers on the HTTP port "
            f"(4318 unless --http-port says otherwise), e.g. {parts.scheme}://{parts.hostname}:4318"
        )
    if parts.path.strip("/"):
        return f"; pass the server's address without a path, e.g. {parts.scheme}://{parts.netloc}"
    return "; is `harborlight serve` running there?"


def cannot_reach(server: str, exc: BaseException | str) -> str:
    reason = exc if isinstance(exc, str) else (str(exc).strip() or type(exc).__name__)
    return f"cannot reach harborlight at {server} ({reason}){_hint(server, None if isinstance(exc, str) else exc)}"


def not_found_hint(server: str) -> str:
    """What to add to a 404 of the API: an address with a path finds no route."""
    return _hint(server) if urlsplit(server).path.strip("/") else ""
