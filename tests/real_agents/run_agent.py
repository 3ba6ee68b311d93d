"""Runs one agent non-interactively on one episode: a temp HOME and workspace, the fake provider playing
the episode's script, the agent's own OTLP export through a recording relay to a running harborlight.

`run_agent` returns once the agent has exited and harborlight has acknowledged every export request it
sent (the relay waits for those acknowledgements; an acknowledged request is in harborlight's write-ahead
log, and the case waits for the committer to store it: tests/real_agents/cases.py).
"""

import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from tests.real_agents.agents import claude_code, codex, gemini_cli, opencode, qwen_code
from tests.real_agents.agents.base import Telemetry, missing_reason, pinned_version
from tests.real_agents.episodes import Episode, episode
from tests.real_agents.otlp_relay import OtlpRelay
from tests.real_agents.providers.script import Script
from tests.real_agents.recordings import Recording, ServedCall

AGENTS = {module.NAME: module for module in (claude_code, codex, gemini_cli, qwen_code, opencode)}


@dataclass(frozen=True)
class Run:
    agent: str
    version: str
    episode: Episode
    protocol: str
    traces: bool
    job: str
    trial: str
    exit_code: int
    stdout: str
    stderr: str
    script: Script
    otlp_lines: list[str]
    refused: list[str]  # export requests harborlight did not accept, with its answer

    def recording(self, workspace: Path) -> Recording:
        served = [ServedCall(s.model, s.response_id, s.index) for s in self.script.served]
        cost = AGENTS[self.agent].reported_cost(self.stdout) if self.exit_code == 0 else None
        return Recording(
            self.agent,
            self.version,
            self.episode.name,
            self.protocol,
            self.traces,
            self.job,
            self.trial,
            str(workspace),
            served,
            cost,
        )


def skip_reason(agent: str) -> str | None:
    module = AGENTS[agent]
    if hasattr(module, "skip_reason"):  # an agent that needs more than its package (Qwen Code: Node 22)
        return module.skip_reason()
    return missing_reason(module.PACKAGE, module.BINARY)


def run_agent(
    agent: str,
    episode_name: str,
    protocol: str,
    traces: bool,
    server,
    root: Path,
    job: str,
    trial: str,
    timeout: float = 300,
) -> Run:
    """`server` is a running harborlight (tests.support.servers); `root` an empty directory for the run."""
    module = AGENTS[agent]
    home, workspace = root / "home", root / "workspace"
    shutil.rmtree(root, ignore_errors=True)
    (home / "tmp").mkdir(parents=True)
    workspace.mkdir()
    chosen = episode(agent, episode_name, workspace)
    for name, text in chosen.files.items():
        (workspace / name).write_text(text)
    script = Script(chosen.turns)
    resource = f"harbor.job.name={job},harbor.trial.name={trial}"
    with module.provider(script) as fake, OtlpRelay(server.grpc_endpoint, server.http_url) as relay:
        endpoint = relay.grpc_endpoint if protocol == "grpc" else relay.http_endpoint
        launch = module.launch(
            chosen.prompt, workspace, home, fake.url, Telemetry(protocol, endpoint, traces, resource)
        )
        done = subprocess.run(
            launch.argv,
            cwd=workspace,
            env=launch.env,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=timeout,
        )
        relay.wait_stored()
        return Run(
            agent,
            pinned_version(module.PACKAGE),
            chosen,
            protocol,
            traces,
            job,
            trial,
            done.returncode,
            done.stdout,
            done.stderr,
            script,
            list(relay.lines),
            list(relay.failures),
        )
