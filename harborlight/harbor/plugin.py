"""`harbor run --plugin harborlight`: a Harbor job plugin that streams each trial to harborlight as
it runs, as exactly the telemetry `harborlight import harbor` makes of the trial's directory.

A trial's setup phases (`harbor.environment_setup`, `harbor.agent_setup`) are sent when its agent
starts, everything else (the agent's phase with the trajectory, the verifier and its rewards, the
exception, the `harbor.trial` root that marks it complete) when it ends; the job's and the trials'
log and lock files when the job ends. Each is the importer's request for the same directory, byte
for byte (harborlight/transfer/harbor_spans.py), so importing the job directory afterwards adds nothing: the
store acknowledges a request it holds already.

Harbor gives a plugin no per-trial handle on the agent's environment (the agent and its variables
are made before the first trial hook), so an agent's own telemetry names its trial by its session
id; see docs/harbor.md for which agents pass which variables.

Endpoint, protocol and token: `--plugin-kwarg endpoint=http://HOST:4318 [protocol=grpc] [token=T]`,
else the OpenTelemetry exporter's variables (OTEL_EXPORTER_OTLP_[TRACES_|LOGS_]ENDPOINT, _PROTOCOL
`grpc` or `http/protobuf`, _HEADERS, _TIMEOUT, _COMPRESSION; harborlight/harbor/sender.py).

The plugin never harms the job: nothing it does raises into Harbor (a trial whose files it cannot
read or turn into requests is logged with its name and counted, and the job goes on), its requests
leave from a sender thread of their own (a bounded queue, a deadline per request), and the job's
end waits for them at most `end_timeout` seconds (30 by default), then says what was dropped.
"""

import dataclasses
import json
import logging
import os
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from harbor.job import Job
from harbor.models.job.plugin import BaseJobPlugin
from harbor.models.job.result import JobResult
from harbor.trial.hooks import TrialEvent, TrialHookEvent

from harborlight.harbor.sender import (
    DEFAULT_END_TIMEOUT,
    DEFAULT_QUEUE_SIZE,
    GRPC,
    PROBE_TIMEOUT,
    Batch,
    Sender,
    Target,
    parse_headers,
    targets,
)
from harborlight.store import Signal
from harborlight.transfer.harbor_files import TrialResult
from harborlight.transfer.harbor_import import attempts, context_of, job_context, job_log_requests, trial_log_requests
from harborlight.transfer.harbor_read import LogFile, read_job, read_job_head, read_trial
from harborlight.transfer.harbor_spans import finished_stages, trial_requests

log = logging.getLogger(__name__)

__all__ = ["HarborlightPlugin", "endpoints", "parse_headers"]


def endpoints(endpoint: str | None, environ: dict[str, str], protocol: str | None = None) -> dict[Signal, str]:
    """Where each signal goes (the URL posted to over OTLP/HTTP, the gRPC target over gRPC)."""
    return {signal: target.endpoint for signal, target in targets(endpoint, protocol, None, None, environ).items()}


def _brief(exc: BaseException) -> str:
    text = str(exc).splitlines()[0] if str(exc) else ""
    return text if text else type(exc).__name__


class HarborlightPlugin(BaseJobPlugin):
    def __init__(
        self,
        endpoint: str | None = None,
        token: str | None = None,
        timeout: float | None = None,
        protocol: str | None = None,
        end_timeout: float = DEFAULT_END_TIMEOUT,
        queue_size: int = DEFAULT_QUEUE_SIZE,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self._targets: dict[Signal, Target] = targets(
            endpoint, protocol, None if token is None else str(token), timeout, dict(os.environ)
        )
        self._urls = {signal: target.endpoint for signal, target in self._targets.items()}
        self._end_timeout = float(end_timeout)
        self._sender = Sender(self._targets, queue_size)
        self._job_dir: Path | None = None
        self._started: dict[tuple, dict[str, Any]] = {}  # per task, agent and model: each trial's start
        self._unreadable_owners: set[str] = set()  # trials (or the job) whose files it could not read or send
        self.unreachable: list[tuple[Target, str]] = []  # what the job's start could not reach, and why

    @property
    def unreadable(self) -> int:
        """Trials (or the job) whose files the plugin could not read or turn into requests (each logged)."""
        return len(self._unreadable_owners)

    @property
    def failures(self) -> int:
        """Requests harborlight did not take, and files the plugin could not send (each logged)."""
        return self._sender.counts.failed + self.unreadable

    @property
    def rejected(self) -> int:
        """Items of requests harborlight took in part (each request logged with the reason)."""
        return self._sender.counts.rejected

    @property
    def dropped(self) -> int:
        """Requests never sent: the queue was full, or the job's end did not wait for them."""
        return self._sender.counts.dropped_full + self._sender.counts.dropped_end

    @property
    def sent(self) -> int:
        return self._sender.counts.sent

    async def on_job_start(self, job: Job) -> None:
        try:
            self._job_dir = job.job_dir
            job.add_hook(TrialEvent.START, self._on_start)
            job.add_hook(TrialEvent.AGENT_START, self._on_agent_start)
            job.add_hook(TrialEvent.END, self._on_end)
            self._sender.start()
        except Exception as exc:
            log.warning("harborlight plugin: not streaming this job: %s", _brief(exc))
            return
        self._note_resumed()
        try:
            probe = min([PROBE_TIMEOUT, *(t.timeout for t in self._targets.values())])
            self.unreachable = await self._sender.probe(probe)
        except Exception as exc:
            self.unreachable = [(next(iter(self._targets.values())), _brief(exc))]
        if self.unreachable:
            log.warning("%s", _unreachable_warning(self.unreachable))

    def _note_resumed(self) -> None:
        """A resumed job's finished trials: their starts number the new ones' attempts."""
        try:
            if not (self._job_dir.is_dir() and any(self._job_dir.glob("*/result.json"))):
                return
            for path in sorted(self._job_dir.glob("*/result.json")):
                try:
                    result = TrialResult.model_validate(json.loads(path.read_text()))
                except Exception as exc:
                    self._unreadable(path.parent.name, "its earlier result", exc)
                    continue
                self._note_start(result)
        except Exception as exc:
            self._unreadable("job", "the resumed trials", exc)

    async def on_job_end(self, job_result: JobResult) -> None:
        """The job's and trials' log and lock files, once Harbor has closed them; then what is still
        queued, for at most `end_timeout` seconds."""
        try:
            self._submit_logs()
        except Exception as exc:
            self._unreadable("job", "the log and lock files", exc)
        try:
            await self._sender.close(self._end_timeout)
        except Exception as exc:
            log.warning("harborlight plugin: stopping its sender: %s", _brief(exc))
        self._summary()

    def _submit_logs(self) -> None:
        try:
            job = read_job(self._job_dir)
        except Exception:  # a trial it cannot read: the others' files still go
            job = self._readable_job()
        for line in getattr(job, "refused", ()):
            log.warning("harborlight plugin: job %s: %s", self._job_dir.name, line)
        context, numbers = context_of(job), attempts(job)
        for trial in job.trials:
            self._sender.submit(
                Batch(
                    f"trial {trial.name}",
                    "trial.log and lock.json",
                    trial_log_requests(context, trial, numbers.get(trial.name)),
                )
            )
        self._sender.submit(Batch(f"job {job.name}", "job.log and lock.json", job_log_requests(context, job)))

    def _readable_job(self) -> SimpleNamespace:
        """The job as read_job reads it, without the trials that cannot be read (each logged)."""
        config, result = read_job_head(self._job_dir)
        trials = []
        for path in sorted(
            p
            for p in self._job_dir.iterdir()
            if p.is_dir() and not p.is_symlink() and not p.name.startswith(".") and (p / "config.json").is_file()
        ):
            try:
                trials.append(read_trial(path))
            except Exception as exc:
                self._unreadable(f"trial {path.name}", "trial.log and lock.json", exc)
        return SimpleNamespace(
            name=self._job_dir.name,
            path=self._job_dir,
            config=config,
            result=result,
            trials=tuple(trials),
            log=_carried(self._job_dir / "job.log"),
            lock=_carried(self._job_dir / "lock.json"),
        )

    def _summary(self) -> None:
        counts = self._sender.counts
        line = (
            f"harborlight plugin: job {self._job_dir.name if self._job_dir else '?'}: {counts.sent} requests "
            f"taken, {counts.failed} not taken, {self.dropped} dropped ({counts.dropped_full} with the queue "
            f"full, {counts.dropped_end} at the end's {self._end_timeout:g} s deadline), {self.unreadable} "
            f"trials whose files it could not read, {counts.rejected} items rejected"
        )
        if self.failures or self.dropped or counts.rejected:
            log.warning("%s; `harborlight import harbor JOBDIR` sends the directory again", line)
        else:
            log.info(line)

    def _unreadable(self, owner: str, what: str, exc: BaseException) -> None:
        self._unreadable_owners.add(owner)
        log.warning("harborlight plugin: %s: %s not sent: %s; the job goes on", owner, what, _brief(exc))

    def _note_start(self, result) -> None:
        info = result.agent_info
        group = (result.task_name, info.name, info.model_info.name if info.model_info else None)
        self._started.setdefault(group, {})[result.trial_name] = result.started_at

    def _attempt(self, result) -> int | None:
        """harbor.attempt as the importer numbers it (harborlight/transfer/harbor_import.py attempts): the trial's
        place by start time among the job's trials of its task, agent and model."""
        info = result.agent_info
        group = self._started.get((result.task_name, info.name, info.model_info.name if info.model_info else None), {})
        ordered = sorted(group, key=lambda name: (group[name] is None, group[name], name))
        return ordered.index(result.trial_name) + 1 if result.trial_name in group else None

    async def _on_start(self, event: TrialHookEvent) -> None:
        try:
            self._note_start(event.result)
        except Exception as exc:
            self._unreadable(f"trial {event.trial_name}", "its start", exc)

    async def _on_agent_start(self, event: TrialHookEvent) -> None:
        """The setup phases have ended: their request, as the finished trial's first."""
        try:
            trial = read_trial(self._job_dir / event.trial_name)
            so_far = TrialResult.model_validate(json.loads(event.result.model_dump_json()))
            setup, _ = finished_stages(
                job_context(self._job_dir), dataclasses.replace(trial, result=so_far), self._attempt(event.result)
            )
        except Exception as exc:
            self._unreadable(f"trial {event.trial_name}", "its setup phases", exc)
            return
        self._sender.submit(
            Batch(f"trial {event.trial_name}", "its setup phases", [(Signal.traces, body) for body in setup])
        )

    async def _on_end(self, event: TrialHookEvent) -> None:
        try:
            trial = read_trial(self._job_dir / event.trial_name)
            bodies = trial_requests(job_context(self._job_dir), trial, self._attempt(event.result))
        except Exception as exc:
            self._unreadable(f"trial {event.trial_name}", "its end", exc)
            return
        self._sender.submit(Batch(f"trial {event.trial_name}", "its end", [(Signal.traces, body) for body in bodies]))


def _carried(path: Path, limit: int = 64 << 20) -> LogFile | None:
    """A job's log or lock file as the importer carries it: a regular file in place (no symlink), its
    bytes not UTF-8 as U+FFFD."""
    try:
        if path.is_symlink() or not path.is_file() or path.stat().st_size > limit:
            return None
        return LogFile(path.read_bytes().decode("utf-8", errors="replace"), path.stat().st_mtime_ns)
    except OSError:
        return None


def _unreachable_warning(unreachable: list[tuple[Target, str]]) -> str:
    """One line: what the job's start could not reach, why, and what to set."""
    if len({reason for _, reason in unreachable}) == 1:
        where = f"{' and '.join(target.describe() for target, _ in unreachable)}: {unreachable[0][1]}"
    else:
        where = "; ".join(f"{target.describe()}: {reason}" for target, reason in unreachable)
    reasons = " ".join(reason for _, reason in unreachable)
    protocols = {target.protocol for target, _ in unreachable}
    if any(code in reasons for code in ("HTTP 401", "HTTP 403", "UNAUTHENTICATED", "PERMISSION_DENIED")):
        hint = "set its token: --plugin-kwarg token=T, or OTEL_EXPORTER_OTLP_HEADERS=Authorization=Bearer%20T"
    elif protocols == {GRPC}:
        hint = (
            "set OTEL_EXPORTER_OTLP_ENDPOINT to harborlight's OTLP/gRPC port (http://HOST:4317), or "
            "OTEL_EXPORTER_OTLP_PROTOCOL=http/protobuf for its OTLP/HTTP port (http://HOST:4318)"
        )
    else:
        hint = (
            "set --plugin-kwarg endpoint=http://HOST:4318 (harborlight's OTLP/HTTP port); for its gRPC "
            "port (4317) set OTEL_EXPORTER_OTLP_PROTOCOL=grpc (or --plugin-kwarg protocol=grpc)"
        )
    return (
        f"WARNING harborlight plugin: cannot reach harborlight at {where}. The job runs, but its trials "
        f"reach harborlight only if it answers later (else `harborlight import harbor JOBDIR` afterwards): "
        f"{hint}."
    )
