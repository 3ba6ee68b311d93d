"""harborlight's answers about one trial, read the way a user reads them: over its HTTP API, and as the
Harbor job directory `harborlight export-job` writes."""

from functools import cached_property
from pathlib import Path

import httpx

from harborlight.cli.main import main


class Answers:
    def __init__(self, server_url: str, job: str, trial: str, export_dir: Path) -> None:
        self.url, self.job, self.trial, self._export_dir = server_url, job, trial, export_dir
        self._spans: dict[str, list[dict]] = {}

    def _get(self, path: str, **params) -> dict:
        answer = httpx.get(self.url + path, params=params, timeout=120)
        assert answer.status_code == 200, f"GET {path}: {answer.status_code} {answer.text[:500]}"
        return answer.json()

    def spans(self, kind: str) -> list[dict]:
        """Every agent event of the trial of one kind, in time order (all pages)."""
        if kind not in self._spans:
            self._spans[kind] = self._all_spans(kind)
        return self._spans[kind]

    def _all_spans(self, kind: str) -> list[dict]:
        items, cursor = [], None
        while True:
            page = self._get(
                "/api/spans",
                job=self.job,
                trial=self.trial,
                kind=kind,
                limit=1000,
                **({"cursor": cursor} if cursor else {}),
            )
            items += page["items"]
            if not (cursor := page["next_cursor"]):
                return items

    @cached_property
    def trial_row(self) -> dict:
        return self._get(f"/api/trials/{self.trial}", job=self.job)

    @cached_property
    def job_row(self) -> dict:
        return self._get(f"/api/jobs/{self.job}")

    @cached_property
    def behavior(self) -> dict:
        return self._get(f"/api/trials/{self.trial}/behavior", job=self.job)

    @cached_property
    def trace(self) -> dict:
        return self._get(f"/api/trials/{self.trial}/trace", job=self.job)

    @cached_property
    def trajectory(self) -> dict:
        return self._get(f"/api/trials/{self.trial}/trajectory", job=self.job)

    @cached_property
    def exported_job(self) -> Path:
        """The job directory `harborlight export-job JOB --snapshot --out DIR --server URL` writes. A trial
        streamed by an agent without a harness has no end (no harbor.trial span): --snapshot writes its
        result.json anyway, as Harbor does once the trial ends."""
        assert main(["export-job", self.job, "--snapshot", "--out", str(self._export_dir), "--server", self.url]) == 0
        return self._export_dir / self.job
