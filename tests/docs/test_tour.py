"""The README's five-minute tour, run as a newcomer would paste it: against `harborlight serve`, each
command answers (exit 0, nothing on stderr) about the trial Claude Code recorded in the real-agent tests."""

import os
import re
import subprocess
import sys
from pathlib import Path

from tests.support.servers import SubprocessServer

ROOT = Path(__file__).resolve().parents[2]
TOUR_URL = "http://127.0.0.1:4318"


def _tour() -> list[str]:
    readme = (ROOT / "README.md").read_text()
    section = readme.split("## A five-minute tour", 1)[1]
    block = re.search(r"```sh\n(.*?)```", section, re.S).group(1)
    return [line for line in block.splitlines() if line.strip() and not line.startswith("export PATH")]


def test_the_tour_runs(tmp_path):
    srv = SubprocessServer(tmp_path / "store").start()
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
           "COLUMNS": "200"}  # a terminal wide enough that table cells are not wrapped
    try:
        answers = {}
        for command in _tour():
            done = subprocess.run(command.replace(TOUR_URL, srv.http_url), shell=True, cwd=ROOT, env=env,
                                  capture_output=True, text=True, timeout=300)
            assert (done.returncode, done.stderr) == (0, ""), f"{command}\n{done.stderr}"
            answers[command.split()[1]] = done.stdout
    finally:
        srv.stop()
    assert "claude-code-three-turn-http" in answers["jobs"] or "fixture-claude-code-three-turn" in answers["jobs"]
    assert "claude-sonnet-4-5" in answers["trial"]  # the model of its three main turns
    assert "Write" in answers["spans"] and "Read" in answers["spans"]  # the episode's two tool calls
