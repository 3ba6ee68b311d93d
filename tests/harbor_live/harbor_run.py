"""A real Harbor job for the tests: Harbor's own Job API runs each trial (its queue, hooks, verifier,
result and lock files) with the host environment and the scripted agent, and the plugins given."""

from pathlib import Path

from harbor.cli.job_plugins import PluginConfig, attach_job_plugins, finalize_job_plugins
from harbor.job import Job
from harbor.models.job.config import JobConfig
from harbor.models.trial.config import AgentConfig, EnvironmentConfig, TaskConfig

from tests.harbor_live.host_environment import HostEnvironment
from tests.harbor_live.scripted_agent import ScriptedAgent

# The verifier's test: reward 1 when the agent wrote its answer, else 0.
TEST_SH = "#!/bin/bash\nif [ -f /app/answer.txt ]; then echo 1; else echo 0; fi > /logs/verifier/reward.txt\n"


def make_task(root: Path, name: str, instruction: str, test_sh: str = TEST_SH) -> Path:
    task = root / "tasks" / name
    (task / "tests").mkdir(parents=True)
    (task / "environment").mkdir()
    (task / "task.toml").write_text(
        'version = "1.0"\n\n[verifier]\ntimeout_sec = 60.0\n\n[agent]\ntimeout_sec = 60.0\n'
    )
    (task / "instruction.md").write_text(instruction + "\n")
    (task / "tests" / "test.sh").write_text(test_sh)
    (task / "environment" / "Dockerfile").write_text("FROM ubuntu:24.04\n")
    return task


def job_config(root: Path, name: str, n_attempts: int = 2, agent_env: dict | None = None) -> JobConfig:
    """Two tasks, one the agent solves and one where it crashes, `n_attempts` trials each."""
    tasks = [make_task(root, "solve-it", "Write the answer."), make_task(root, "crash-it", "Please fail.")]
    return JobConfig(
        job_name=name,
        jobs_dir=root / "jobs",
        n_attempts=n_attempts,
        n_concurrent_trials=2,
        quiet=True,
        skip_credential_checks=True,
        agents=[
            AgentConfig(
                import_path=f"{ScriptedAgent.__module__}:ScriptedAgent",
                model_name="scripted/scripted-model-1",
                env=agent_env or {},
            )
        ],
        environment=EnvironmentConfig(import_path=f"{HostEnvironment.__module__}:HostEnvironment"),
        tasks=[TaskConfig(path=t) for t in tasks],
    )


async def run_job(config: JobConfig, plugins: list[PluginConfig]) -> tuple[Job, object]:
    """As `harbor run` does: create the job, attach the plugins, run, finalize them."""
    job, result, _ = await run_job_with_plugins(config, plugins)
    return job, result


async def run_job_with_plugins(config: JobConfig, plugins: list[PluginConfig]) -> tuple[Job, object, list]:
    """run_job, and the plugins attached (their counts)."""
    job = await Job.create(config)
    attached = await attach_job_plugins(job, plugins)
    result = await job.run()
    await finalize_job_plugins(attached, result)
    return job, result, attached
