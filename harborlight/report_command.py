"""`harborlight report JOB`: a job's metrics, from the data directory itself or a running server.

Both ways give the same answers: directly, the query layer runs on the embedded store; with
--server, the same routes answer over HTTP. Bad input is one line on stderr and exit 1.
"""

import argparse
import sys
from pathlib import Path
from typing import Any, Protocol
from urllib.parse import quote

from rich.console import Console

FORMATS = ("table", "json", "md")


class ReportError(Exception):
    """A one-line reason the report cannot be made."""


class Source(Protocol):
    def job(self, job: str) -> dict[str, Any]: ...
    def trials(self, job: str) -> list[dict[str, Any]]: ...
    def report(self, job: str, fmt: str) -> str: ...


class ServerSource:
    """A running harborlight's /api routes."""

    def __init__(self, url: str, token: str | None) -> None:
        import httpx

        self._http = httpx.Client(base_url=url.rstrip("/"), timeout=120,
                                  headers={"authorization": f"Bearer {token}"} if token else {})
        self._url = url

    def _get(self, path: str, **params: Any) -> Any:
        import httpx

        try:
            reply = self._http.get(path, params=params)
        except httpx.HTTPError as exc:
            raise ReportError(f"cannot reach harborlight at {self._url}: {exc}") from None
        if reply.status_code == 401:
            raise ReportError(f"{self._url} asks for a token: pass --token")
        if reply.status_code >= 400:
            try:
                detail = reply.json().get("detail")
            except ValueError:
                detail = reply.text.strip()[:200]
            raise ReportError(str(detail or f"HTTP {reply.status_code}"))
        return reply

    def job(self, job: str) -> dict[str, Any]:
        return self._get(f"/api/jobs/{quote(job, safe='')}").json()

    def trials(self, job: str) -> list[dict[str, Any]]:
        items, cursor = [], None
        while True:
            page = self._get(f"/api/jobs/{quote(job, safe='')}/trials",
                             **({"cursor": cursor} if cursor else {})).json()
            items += page["items"]
            cursor = page["next_cursor"]
            if not cursor:
                return items

    def report(self, job: str, fmt: str) -> str:
        return self._get(f"/api/jobs/{quote(job, safe='')}/report", format=fmt).text


class StoreSource:
    """The store itself (embedded data directory or a ClickHouse URL), read with the query layer."""

    def __init__(self, data_dir: Path, clickhouse_url: str | None) -> None:
        from storage import StoreUnavailable, open_client

        if not clickhouse_url and not (data_dir / "metadata").is_dir():
            raise ReportError(f"no harborlight store in {data_dir} (pass --data-dir, or --server URL)")
        try:
            self._store = open_client(data_dir, clickhouse_url)
        except StoreUnavailable as exc:
            raise ReportError(f"{exc}; or run: harborlight report JOB --server http://HOST:PORT") from None
        self._loaded: dict[str, list] = {}

    def _trials(self, job: str) -> list:
        from query.load_trials import load_trials

        if job not in self._loaded:
            self._loaded[job] = load_trials(self._store.client, "", jobs=[job])
        if not self._loaded[job]:
            raise ReportError(f"no job named {job!r}")
        return self._loaded[job]

    def job(self, job: str) -> dict[str, Any]:
        from query.rows_json import job_row

        return job_row(job, [t.facts for t in self._trials(job)])

    def trials(self, job: str) -> list[dict[str, Any]]:
        from query.rows_json import trial_row

        return [trial_row(t) for t in self._trials(job)]

    def report(self, job: str, fmt: str) -> str:
        from query.job_report import ReportOptions, report_text

        try:
            return report_text(job, [t.facts for t in self._trials(job)], ReportOptions(), fmt)
        except ValueError as exc:
            raise ReportError(str(exc)) from None


def run_report(args: argparse.Namespace) -> int:
    from harborlight.report_table import report_tables
    from harborlight.settings import Settings

    try:
        if args.format not in FORMATS:
            raise ReportError(f"--format must be one of {', '.join(FORMATS)}, got {args.format!r}")
        if not args.job.strip():
            raise ReportError("JOB must name a job")
        if args.server:
            source: Source = ServerSource(args.server, args.token)
        else:
            settings = Settings.resolve({"data_dir": args.data_dir, "clickhouse_url": args.clickhouse_url})
            source = StoreSource(settings.data_dir, settings.clickhouse_url)
        if args.format == "table":
            job, trials = source.job(args.job), source.trials(args.job)
            console = Console(width=None if sys.stdout.isatty() else 160)
            console.print(report_tables(job, trials))
        else:
            sys.stdout.write(source.report(args.job, args.format))
    except ReportError as exc:
        print(f"harborlight: {exc}", file=sys.stderr)
        return 1
    return 0


def add_report_command(commands: Any) -> None:
    """Registers `report` on the CLI's subcommands."""
    report = commands.add_parser("report", help="a job's metrics: a table, metrics.json or summary.md")
    report.add_argument("job", metavar="JOB", help="the job name (harbor.job.name)")
    report.add_argument("--format", default="table",
                        help="table (default), json (AgentCompass metrics.json) or md (summary.md)")
    report.add_argument("--data-dir", type=Path, default=None,
                        help="read this embedded store directly (env HARBORLIGHT_DATA_DIR, default harborlight-data)")
    report.add_argument("--clickhouse-url", default=None, help="read a ClickHouse server directly")
    report.add_argument("--server", default=None, help="ask a running harborlight instead, e.g. http://127.0.0.1:4318")
    report.add_argument("--token", default=None, help="bearer token for --server when it requires one")
    report.set_defaults(run=run_report)
