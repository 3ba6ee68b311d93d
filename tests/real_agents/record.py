"""Re-records the fixtures: every agent that is installed, on every episode, over gRPC and HTTP.

    PYTHONPATH=$PWD .venv/bin/python -m tests.real_agents.record [AGENT[:EPISODE] ...]

Runs each agent against the fake provider and a harborlight on a temp store (logs, metrics and spans;
Claude Code's three-turn episode also without spans, its spans being opt-in), and writes
fixtures/<agent>-<version>-<episode>-<protocol>[-logs].jsonl with its .served.json. A run that fails (the
agent exits non-zero, the script is not played to its end, harborlight refuses a request) writes nothing
and is reported. Workspaces are fixed (/tmp/harborlight-real-agents/...), so paths in a new recording
match the old one.
"""

import sys
import tempfile
from pathlib import Path

from harborlight.settings import Settings
from tests.real_agents.episodes import EPISODES
from tests.real_agents.recordings import RECORDING_ROOT
from tests.real_agents.run_agent import AGENTS, run_agent, skip_reason
from tests.support.servers import InProcessServer

PROTOCOLS = ("grpc", "http")


def runs(agent: str) -> list[tuple[str, str, bool]]:
    """(episode, protocol, traces) of every recording of the agent."""
    protocols = getattr(AGENTS[agent], "PROTOCOLS", PROTOCOLS)  # opencode exports over HTTP only
    every = [(name, protocol, True) for name in EPISODES[agent] for protocol in protocols]
    if AGENTS[agent].TRACES_OPTIONAL:
        every += [("three-turn", protocol, False) for protocol in protocols]
    return every


def record_one(server, agent: str, name: str, protocol: str, traces: bool) -> str:
    label = f"{agent}-{name}-{protocol}" + ("" if traces else "-logs")
    root = RECORDING_ROOT / label
    run = run_agent(agent, name, protocol, traces, server, root, job=f"fixture-{agent}-{name}", trial=label)
    problem = (
        f"exit {run.exit_code}: {run.stderr[-500:]}"
        if run.exit_code
        else "the script was not played to its end"
        if not run.script.finished
        else f"refused: {run.refused}"
        if run.refused
        else None
    )
    if problem:
        raise RuntimeError(f"{label}: FAILED, nothing written ({problem})")
    path = run.recording(root / "workspace").save(run.otlp_lines)
    return f"{label}: {len(run.otlp_lines)} requests -> {path.name}"


def record(selection: list[str]) -> int:
    failed = 0
    with tempfile.TemporaryDirectory() as store:
        server = InProcessServer(Settings(data_dir=Path(store))).start()
        try:
            for item in selection:
                agent, _, only = item.partition(":")
                if reason := skip_reason(agent):
                    print(f"{agent}: skipped ({reason})")
                    continue
                for name, protocol, traces in runs(agent):
                    if only and name != only:
                        continue
                    try:
                        print(record_one(server, agent, name, protocol, traces))
                    except RuntimeError as exc:
                        failed += 1
                        print(exc)
        finally:
            server.stop()
    return failed


if __name__ == "__main__":
    sys.exit(1 if record(sys.argv[1:] or list(AGENTS)) else 0)
