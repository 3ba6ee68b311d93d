"""How the query commands reach the API: one way for all of them.

Either a running harborlight over HTTP (--server URL, or env HARBORLIGHT_SERVER), or the store
itself (--data-dir / --clickhouse-url) with the server's own app (harborlight/api/build.py: build_api)
called in this process through httpx's ASGI transport. Both are an httpx.Client, so every command is
"GET a route, render its JSON", and both ways give the same answers.

httpx, the app and the store are imported when the first request is made: `--help` needs none of them.
"""

import argparse
import json
import logging
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

if TYPE_CHECKING:
    import httpx

DEFAULT_PAGE = 1000  # rows asked for per page when following a cursor


class ApiError(Exception):
    """A one-line reason a question cannot be answered."""


def add_api_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--server", default=None, help="ask a running harborlight, e.g. http://127.0.0.1:4318 (env HARBORLIGHT_SERVER)"
    )
    parser.add_argument(
        "--token", default=None, help="bearer token for --server when it requires one (env HARBORLIGHT_TOKEN)"
    )
    parser.add_argument(
        "--data-dir",
        type=Path,
        default=None,
        help="read this embedded store directly (env HARBORLIGHT_DATA_DIR, default harborlight-data)",
    )
    parser.add_argument("--clickhouse-url", default=None, help="read a ClickHouse server directly")


def segment(name: str) -> str:
    """A job or trial name as one path segment (names may hold '/')."""
    return quote(name, safe="")


class Api:
    """GETs on the /api routes; opened on the first request, so flags are checked before the store
    is touched. Use as a context manager: it closes what it opened."""

    def __init__(self, args: argparse.Namespace, usage: str) -> None:
        self._args, self._usage = args, usage
        self._client: httpx.Client | None = None
        self._close: Callable[[], None] = lambda: None
        self.where = ""
        self.remote = False  # asking a running server (else: the same routes run in this process)

    def __enter__(self) -> "Api":
        return self

    def __exit__(self, *_: object) -> None:
        if self._client is not None:
            self._client.close()
        self._close()

    def get(self, path: str, **params: Any) -> "httpx.Response":
        import httpx

        from harborlight.transfer.reach import cannot_reach, not_found_hint

        client = self._client or self._open()
        try:
            reply = client.get(path, params={k: v for k, v in params.items() if v not in (None, "")})
        except httpx.HTTPError as exc:
            raise ApiError(cannot_reach(self.where, exc)) from None
        except Exception as exc:  # in-process: the query itself failed in the store
            raise ApiError(f"the store could not answer: {type(exc).__name__}: {str(exc).splitlines()[0]}") from None
        if reply.status_code == 401:
            raise ApiError(f"{self.where} asks for a token: pass --token")
        if reply.status_code == 404 and self.remote and not_found_hint(self.where):
            raise ApiError(f"{self.where} answered 404 for {path}{not_found_hint(self.where)}")
        if reply.status_code >= 400:
            raise ApiError(_reason(reply))
        return reply

    def json(self, path: str, **params: Any) -> Any:
        reply = self.get(path, **params)
        try:
            return reply.json()
        except ValueError:
            raise ApiError(f"{self.where} did not answer JSON on {path}: is it a harborlight?") from None

    def pages(self, path: str, limit: int | None, page: int = DEFAULT_PAGE, **params: Any) -> dict[str, Any]:
        """Up to `limit` rows (None: all) of a paged route, following its cursor; the route's shape,
        with the cursor after the last row read (None when the rows ran out)."""
        items: list[Any] = []
        cursor = params.pop("cursor", None)
        while True:
            want = page if limit is None else min(page, limit - len(items))
            answer = self.json(path, **params, limit=want, cursor=cursor)
            items += answer["items"]
            cursor = answer["next_cursor"]
            if not cursor or (limit is not None and len(items) >= limit):
                return {"items": items, "next_cursor": cursor}

    def _open(self) -> "httpx.Client":
        import httpx

        args = self._args
        server = args.server or (None if args.data_dir or args.clickhouse_url else os.environ.get("HARBORLIGHT_SERVER"))
        if server:
            if args.data_dir or args.clickhouse_url:
                raise ApiError("pass --server or --data-dir / --clickhouse-url, not both")
            token = args.token or os.environ.get("HARBORLIGHT_TOKEN")
            self.where, self.remote = server, True
            self._client = httpx.Client(
                base_url=server.rstrip("/"), timeout=120, headers={"authorization": f"Bearer {token}"} if token else {}
            )
        else:
            self._client = self._in_process()
        return self._client

    def _in_process(self) -> "httpx.Client":
        import httpx

        from harborlight.api.build import build_api
        from harborlight.api.deps import Services
        from harborlight.cli.in_process import InProcess
        from harborlight.settings import Settings
        from harborlight.transfer.errors import TransferError
        from harborlight.transfer.local_store import open_local
        from harborlight.transfer.service import Transfers

        # A ClickHouse server that is down is our one line below, not the HTTP stack's retry warnings too.
        for noisy in ("urllib3", "clickhouse_connect"):
            logging.getLogger(noisy).setLevel(logging.ERROR)
        settings = Settings.resolve({"data_dir": self._args.data_dir, "clickhouse_url": self._args.clickhouse_url})
        if not settings.clickhouse_url and not (settings.data_dir / "metadata").is_dir():
            raise ApiError(f"no harborlight store in {settings.data_dir} (pass --data-dir, or --server URL)")
        try:
            # (an older store is brought up to date first)
            store = open_local(self._args.data_dir, self._args.clickhouse_url, self._usage)
        except TransferError as exc:
            raise ApiError(str(exc)) from None
        self.where = settings.clickhouse_url or str(settings.data_dir)
        # Whoever reads the store's files sees every tenant's rows, as the operator token does; trajectories
        # (last_agent_message) are built, nothing is imported through this app.
        app = build_api(
            Services(store=store, authenticate=lambda authorization: "", transfers=Transfers(store, receiver=None))
        )
        transport = InProcess(app)
        self._close = store.client.close  # (the client closes the transport)
        return httpx.Client(transport=transport, base_url="http://harborlight.local", timeout=None)


def _reason(reply: "httpx.Response") -> str:
    """The API's one-line reason: its `detail`, FastAPI's validation errors included."""
    try:
        detail = reply.json().get("detail")
    except (ValueError, AttributeError):
        detail = reply.text.strip()[:200]
    if isinstance(detail, list):
        detail = "; ".join(
            f"{e.get('loc', ['?'])[-1]}: {e.get('msg')}" + (f", got {e['input']!r}" if "input" in e else "")
            for e in detail
        )
    return str(detail or f"HTTP {reply.status_code}")


def print_json(document: Any) -> None:
    sys.stdout.write(json.dumps(document, ensure_ascii=False) + "\n")


def run_query(args: argparse.Namespace, usage: str, show: Callable[[Api, argparse.Namespace], None]) -> int:
    """Runs one query command: a one-line error and exit 1 on anything the user can fix."""
    try:
        with Api(args, usage) as api:
            show(api, args)
    except ApiError as exc:
        print(f"harborlight: {exc}", file=sys.stderr)
        return 1
    except BrokenPipeError:  # `harborlight spans ... | head`: the reader left, nothing to say
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    return 0
