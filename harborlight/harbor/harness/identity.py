"""Who a trial is: the harbor.* resource attributes every span and log record of it carries."""

from dataclasses import dataclass


@dataclass(frozen=True)
class TrialIdentity:
    job: str
    trial: str
    task: str | None = None
    task_source: str | None = None
    attempt: int | None = None
    job_id: str | None = None
    agent: str | None = None
    agent_version: str | None = None
    model: str | None = None
    n_planned_trials: int | None = None  # how many trials the job plans in all (its n_total_trials)
    service: str = "harbor"

    def resource_attributes(self) -> dict[str, str | int]:
        values = {
            "service.name": self.service,
            "harbor.job.name": self.job,
            "harbor.job.id": self.job_id,
            "harbor.trial.name": self.trial,
            "harbor.task.name": self.task,
            "harbor.task.source": self.task_source,
            "harbor.attempt": self.attempt,
            "harbor.agent.name": self.agent,
            "harbor.agent.version": self.agent_version,
            "harbor.model.name": self.model,
            "harbor.job.n_total_trials": self.n_planned_trials,
        }
        return {k: v for k, v in values.items() if v is not None}

    def otel_resource_attributes_env(self) -> str:
        """The same identity as an OTEL_RESOURCE_ATTRIBUTES value, for the agent's own telemetry."""
        return ",".join(f"{k}={v}" for k, v in self.resource_attributes().items() if k != "service.name")
