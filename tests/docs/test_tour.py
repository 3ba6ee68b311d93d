"""The README's five-minute tour, run as a newcomer would paste it: against `harborlight serve`, each
command of its block answers (exit 0, nothing on stderr) about the two Harbor jobs shipped in
examples/harbor-jobs, and the answers show solve rates, pass@k with intervals, and a comparison."""

import os
import re
import subprocess
import sys
from pathlib import Path

from tests.support.servers import SubprocessServer

ROOT = Path(__file__).resolve().parents[2]
TOUR_URL = "http://127.0.0.1:4318"
INTERVAL = r"\[\d+\.\d+%?,\s+\d+\.\d+%?\]"


def _tour() -> list[str]:
    readme = (ROOT / "README.md").read_text()
    section = readme.split("## A five-minute tour", 1)[1]
    block = re.search(r"```sh\n(.*?)```", section, re.S).group(1)
    return [line for line in block.splitlines() if line.strip() and not line.startswith("export PATH")]


def test_the_tour_runs(tmp_path):
    srv = SubprocessServer(tmp_path / "store").start()
    env = {
        **os.environ,
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
        "COLUMNS": "200",
    }  # a terminal wide enough that table cells are not wrapped
    (tmp_path / "examples").symlink_to(ROOT / "examples")  # run where a clone's root would be, writing here
    answers: dict[str, str] = {}
    try:
        for command in _tour():
            done = subprocess.run(
                command.replace(TOUR_URL, srv.http_url),
                shell=True,
                cwd=tmp_path,
                env=env,
                capture_output=True,
                text=True,
                timeout=600,
            )
            assert (done.returncode, done.stderr) == (0, ""), f"{command}\n{done.stderr}"
            key = command.split()[1] + (" html" if "--format html" in command else "")
            answers[key] = answers.get(key, "") + done.stdout
    finally:
        srv.stop()
    jobs = answers["jobs"]
    assert "tour-hasty" in jobs and "tour-careful" in jobs and "60.0%" in jobs and "90.0%" in jobs
    assert re.search(r"k=2 \d\.\d{3}", jobs) and re.search(INTERVAL, jobs)  # pass@k, with intervals
    report = answers["report"]
    assert re.search(r"raw solve rate \[95% CI\]\s+│ 60\.0% " + INTERVAL, report)
    assert re.search(r"pass@k \[95% CI\]\s+│ k=2: \d\.\d{3} " + INTERVAL, report)
    assert "rate_limited" in report and "ApiRateLimitError" in answers["trial"]
    assert "harbor.verifier" in answers["trace"] and "execute_tool Bash" in answers["trace"]
    compare = answers["compare"]
    assert "10 matched task(s)" in compare and re.search(r"\+\d+\.\d pts \[[+-]\d+\.\d, [+-]\d+\.\d\]", compare)
    html = (tmp_path / "report.html").read_text()
    assert html.lower().startswith("<!doctype html")
    assert "tour-careful" in html and "pass@k" in html
    assert len(html) < 700_000  # plotly.js basic bundle once, gzip-compressed (4.9 MB with the full one inlined)
