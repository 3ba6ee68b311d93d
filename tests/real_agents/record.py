"""Re-records the fixtures: every agent that is installed, on every episode, over gRPC and HTTP.

    PYTHONPATH=$PWD .venv/bin/python -m tests.real_agents.record [agent ...]

Runs each agent against the fake provider and a harborlight on a temp store (logs, metrics and, where
the agent has them as an option, traces), and writes fixtures/<agent>-<version>-<episode>-<protocol>.jsonl
with its .served.json. A run that fails (the agent exits non-zero, the script is not played to its end,
harborlight refuses a request) writes nothing and is reported. Workspaces are fixed
(/tmp/harborlight-real-agents/...), so paths in a new recording match the old one.
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


def record(agents: list[str]) -> int:
    failed = 0
    with tempfile.TemporaryDirectory() as store:
        server = InProcessServer(Settings(data_dir=Path(store))).start()
        try:
            for agent in agents:
                if reason := skip_reason(agent):
                    print(f"{agent}: skipped ({reason})")
                    continue
                for name in EPISODES[agent]:
                    for protocol in PROTOCOLS:
                        root = RECORDING_ROOT / f"{agent}-{name}-{protocol}"
                        run = run_agent(agent, name, protocol, True, server, root,
                                        job=f"fixture-{agent}-{name}", trial=f"{agent}-{name}-{protocol}")
                        problem = (f"exit {run.exit_code}: {run.stderr[-500:]}" if run.exit_code
                                   else "the script was not played to its end" if not run.script.finished
                                   else f"refused: {run.refused}" if run.refused else None)
                        if problem:
                            failed += 1
                            print(f"{agent} {name} {protocol}: FAILED, nothing written ({problem})")
                            continue
                        path = run.recording(root / "workspace").save(run.otlp_lines)
                        print(f"{agent} {name} {protocol}: {len(run.otlp_lines)} requests -> {path.name}")
        finally:
            server.stop()
    return failed


if __name__ == "__main__":
    sys.exit(1 if record(sys.argv[1:] or list(AGENTS)) else 0)
