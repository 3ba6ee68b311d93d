"""`harbor run --plugin harborlight`: a Harbor job plugin that streams each trial to harborlight as
it runs, as exactly the telemetry `harborlight import harbor` makes of the trial's directory.

A trial's setup phases (`harbor.environment_setup`, `harbor.agent_setup`) are sent when its agent
starts, everything else (the agent's phase with the trajectory, the verifier and its rewards, the
exception, the `harbor.trial` root that marks it complete) when it ends; the job's and the trials'
log and lock files when the job ends. Each is the importer's request for the same directory, byte
for byte (importers/harbor_spans.py), so importing the job directory afterwards adds nothing: the
store acknowledges a request it holds already.

Harbor gives a plugin no per-trial handle on the agent's environment (the agent and its variables
are made before the first trial hook), so an agent's own telemetry names its trial by its session
id; see docs/harbor.md for which agents pass which variables.

Endpoint and token: `--plugin-kwarg endpoint=http://HOST:4318 --plugin-kwarg token=T`, else the
OpenTelemetry exporter's variables (OTEL_EXPORTER_OTLP_TRACES_ENDPOINT / _LOGS_ENDPOINT, or
OTEL_EXPORTER_OTLP_ENDPOINT; OTEL_EXPORTER_OTLP_HEADERS).
"""

import dataclasses
import json
import logging
import os
from pathlib import Path
from typing import Any
from urllib.parse import unquote

import httpx
from google.protobuf.message import DecodeError
from harbor.job import Job
from harbor.models.job.plugin import BaseJobPlugin
from harbor.models.job.result import JobResult
from harbor.trial.hooks import TrialEvent, TrialHookEvent

from collector.signals import SIGNALS
from importers.harbor_files import TrialResult
from importers.harbor_import import attempts, job_context, job_log_requests, trial_log_requests
from importers.harbor_read import read_job, read_trial
from importers.harbor_spans import finished_stages, trial_requests
from storage import Signal

log = logging.getLogger(__name__)

_PATHS = {Signal.traces: "/v1/traces", Signal.logs: "/v1/logs"}
_PROTOBUF = {"Content-Type": "application/x-protobuf"}


def _headers(value: str) -> dict[str, str]:
    """OTEL_EXPORTER_OTLP_HEADERS: comma-separated key=value pairs, values URL-encoded (the spec's form)."""
    pairs = (pair.partition("=") for pair in value.split(",") if "=" in pair)
    return {key.strip(): unquote(v.strip()) for key, _, v in pairs}


def endpoints(endpoint: str | None, environ: dict[str, str]) -> dict[Signal, str]:
    """Where each signal goes: a base URL given to the plugin, else the exporter's variables (a
    per-signal URL is used as it is, the base one gets the signal's path)."""
    base = endpoint or environ.get("OTEL_EXPORTER_OTLP_ENDPOINT")
    urls = {}
    for signal, path in _PATHS.items():
        own = None if endpoint else environ.get(f"OTEL_EXPORTER_OTLP_{signal.value.upper()}_ENDPOINT")
        if own or base:
            urls[signal] = own or base.rstrip("/") + path
    if len(urls) < len(_PATHS):
        raise ValueError("harborlight plugin: no endpoint; pass --plugin-kwarg endpoint=http://HOST:4318 "
                         "or set OTEL_EXPORTER_OTLP_ENDPOINT")
    return urls


class HarborlightPlugin(BaseJobPlugin):
    def __init__(self, endpoint: str | None = None, token: str | None = None, timeout: float = 30.0,
                 **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._urls = endpoints(endpoint, dict(os.environ))
        headers = _headers(os.environ.get("OTEL_EXPORTER_OTLP_HEADERS", "")) if token is None else {}
        if token is not None:
            headers["Authorization"] = f"Bearer {token}"
        self._client = httpx.AsyncClient(headers={**headers, **_PROTOBUF}, timeout=float(timeout))
        self._job_dir: Path | None = None
        self._started: dict[tuple, dict[str, Any]] = {}  # per task, agent and model: each trial's start
        self.failures = 0  # requests harborlight did not take (each logged)
        self.rejected = 0  # items of requests it took in part (each request logged with the reason)

    async def on_job_start(self, job: Job) -> None:
        self._job_dir = job.job_dir
        if self._job_dir.is_dir() and any(self._job_dir.glob("*/result.json")):  # a resumed job's trials
            for trial in read_job(self._job_dir).trials:
                if trial.result is not None:
                    self._note_start(trial.result)
        job.add_hook(TrialEvent.START, self._on_start)
        job.add_hook(TrialEvent.AGENT_START, self._on_agent_start)
        job.add_hook(TrialEvent.END, self._on_end)

    async def on_job_end(self, job_result: JobResult) -> None:
        """The job's and trials' log and lock files, once Harbor has closed them."""
        try:
            job = read_job(self._job_dir)
            context, numbers = job_context(self._job_dir), attempts(job)
            for trial in job.trials:
                await self._send(trial_log_requests(context, trial, numbers.get(trial.name)))
            await self._send(job_log_requests(context, job))
        finally:
            await self._client.aclose()

    def _note_start(self, result) -> None:
        info = result.agent_info
        group = (result.task_name, info.name, info.model_info.name if info.model_info else None)
        self._started.setdefault(group, {})[result.trial_name] = result.started_at

    def _attempt(self, result) -> int | None:
        """harbor.attempt as the importer numbers it (importers/harbor_import.py attempts): the trial's
        place by start time among the job's trials of its task, agent and model."""
        info = result.agent_info
        group = self._started.get((result.task_name, info.name, info.model_info.name if info.model_info else None), {})
        ordered = sorted(group, key=lambda name: (group[name] is None, group[name], name))
        return ordered.index(result.trial_name) + 1 if result.trial_name in group else None

    async def _on_start(self, event: TrialHookEvent) -> None:
        self._note_start(event.result)

    async def _on_agent_start(self, event: TrialHookEvent) -> None:
        """The setup phases have ended: their request, as the finished trial's first."""
        trial = read_trial(self._job_dir / event.trial_name)
        so_far = TrialResult.model_validate(json.loads(event.result.model_dump_json()))
        setup, _ = finished_stages(job_context(self._job_dir), dataclasses.replace(trial, result=so_far),
                                   self._attempt(event.result))
        await self._send([(Signal.traces, body) for body in setup])

    async def _on_end(self, event: TrialHookEvent) -> None:
        trial = read_trial(self._job_dir / event.trial_name)
        bodies = trial_requests(job_context(self._job_dir), trial, self._attempt(event.result))
        await self._send([(Signal.traces, body) for body in bodies])

    async def _send(self, requests: list[tuple[Signal, bytes]]) -> None:
        """Each request in turn; one harborlight refuses or cannot take is logged and counted, as are the
        items of a request it took only in part (OTLP partial_success: how many, and why), and the job
        goes on (its directory can be imported later)."""
        for signal, body in requests:
            try:
                reply = await self._client.post(self._urls[signal], content=body)
                reply.raise_for_status()
            except httpx.HTTPError as exc:
                self.failures += 1
                log.warning("harborlight plugin: %s request not taken by %s: %s", signal.value, self._urls[signal],
                            str(exc).splitlines()[0] if str(exc) else type(exc).__name__)
                continue
            self._note_partial(signal, reply)

    def _note_partial(self, signal: Signal, reply: httpx.Response) -> None:
        spec = SIGNALS[signal]
        try:
            partial = spec.response.FromString(reply.content).partial_success
        except DecodeError:
            log.warning("harborlight plugin: %s answered %s with no OTLP response", self._urls[signal], signal.value)
            return
        rejected = getattr(partial, spec.rejected_field)
        if rejected or partial.error_message:
            self.rejected += rejected
            log.warning("harborlight plugin: %s rejected %d %s: %s", self._urls[signal], rejected,
                        spec.rejected_field.removeprefix("rejected_").replace("_", " "), partial.error_message)
