"""`harborlight report JOB`: a readable table by default, metrics.json / summary.md on request, the
same answers through a running server (--server) as straight from its data directory, and one
line for every kind of bad input."""

import json
import subprocess
import sys
import uuid

import httpx
import pytest

from harborlight.cli.main import main
from tests.query.job_stream import stream_job
from tests.support.servers import SubprocessServer


@pytest.fixture(scope="module")
def streamed(server):
    return stream_job(server, uuid.uuid4().hex[:12])


def report(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "harborlight.cli.main", "report", *args], capture_output=True, text=True, timeout=120
    )


def test_table_through_a_server_shows_rates_outcomes_and_trials(server, streamed, capsys):
    assert main(["report", streamed.job, "--server", server.http_url]) == 0
    out = capsys.readouterr().out
    assert f"job {streamed.job}" in out
    assert "25.0% [4.6%, 69.9%]" in out and "50.0% [9.5%, 90.5%]" in out  # raw and adjusted, with intervals
    assert "setup_error" in out and "rate_limited" in out and "running" in out
    assert streamed.resolved in out and "EnvironmentStartTimeoutError" in out
    # where the agent time went, the 4 finished trials summed (GET /api/jobs/{job}/time)
    assert "where the agent time went (4 finished trials)" in out
    (model,) = [line for line in out.splitlines() if line.startswith("│ model calls ")]
    assert [c.strip() for c in model.strip("│").split("│")][:3] == ["model calls", "3.40 s", "2.3%"]


def test_json_and_md_through_a_server_are_the_api_documents(server, streamed, capsys):
    assert main(["report", streamed.job, "--server", server.http_url, "--format", "json"]) == 0
    printed = capsys.readouterr().out
    api = httpx.get(f"{server.http_url}/api/jobs/{streamed.job}/report", params={"format": "json"}).text
    assert printed == api and json.loads(printed)["evaluation_failed"] is True
    assert main(["report", streamed.job, "--server", server.http_url, "--format", "md"]) == 0
    assert capsys.readouterr().out.startswith("# DEMO@1 Evaluation Results")
    assert main(["report", streamed.job, "--server", server.http_url, "--format", "intervals"]) == 0
    printed = capsys.readouterr().out
    assert (
        printed == httpx.get(f"{server.http_url}/api/jobs/{streamed.job}/report", params={"format": "intervals"}).text
    )
    assert json.loads(printed)["series"]["correct.native@1"]["interval"]["value"]["method"] == "wilson"


def test_bad_input_is_one_line_and_a_non_zero_exit(server, streamed, capsys):
    assert main(["report", f"{streamed.job}-nope", "--server", server.http_url]) == 1
    err = capsys.readouterr().err
    assert err.strip() == f"harborlight: no job named '{streamed.job}-nope'"
    assert main(["report", streamed.job, "--server", server.http_url, "--format", "xml"]) == 1
    assert (
        capsys.readouterr().err.strip()
        == "harborlight: --format must be one of table, json, md, intervals, html, got 'xml'"
    )
    assert main(["report", streamed.job, "--server", "http://127.0.0.1:9"]) == 1
    assert capsys.readouterr().err.strip().startswith("harborlight: cannot reach harborlight at http://127.0.0.1:9 (")


def test_a_held_data_directory_says_so_and_suggests_server(store_dir, server, streamed):
    held = report(streamed.job, "--data-dir", str(store_dir))
    assert held.returncode == 1 and "Traceback" not in held.stderr
    (line,) = held.stderr.strip().splitlines()
    assert "is held by another running harborlight" in line and "--server" in line


def test_missing_data_directory_is_one_line(tmp_path):
    missing = report("some-job", "--data-dir", str(tmp_path / "nothing-here"))
    assert missing.returncode == 1
    assert (
        missing.stderr.strip()
        == f"harborlight: no harborlight store in {tmp_path / 'nothing-here'} (pass --data-dir, or --server URL)"
    )
    assert not (tmp_path / "nothing-here").exists()


def test_straight_from_the_data_directory_equals_the_servers_answer(tmp_path):
    srv = SubprocessServer(tmp_path / "store").start()
    try:
        job = stream_job(srv, uuid.uuid4().hex[:12]).job
        served = httpx.get(f"{srv.http_url}/api/jobs/{job}/report", params={"format": "json"}, timeout=60).text
    finally:
        srv.stop()
    direct = report(job, "--data-dir", str(tmp_path / "store"), "--format", "json")
    assert direct.returncode == 0, direct.stderr
    assert direct.stdout == served
    table = report(job, "--data-dir", str(tmp_path / "store"))
    assert table.returncode == 0 and f"job {job}" in table.stdout and "25.0%" in table.stdout
