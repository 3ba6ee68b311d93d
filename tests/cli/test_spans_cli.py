"""`harborlight spans`: the API's filters as flags, a table of calls or the route's JSON, the cursor
followed up to --limit."""

import argparse
import json
import time

import httpx

from harborlight.cli.api_access import Api
from tests.cli.commands import run


def api(server, **params) -> dict:
    return httpx.get(f"{server.http_url}/api/spans", params=params, timeout=60).json()


def test_the_429_model_calls_of_a_job_and_nothing_else(server, jobs, capsys):
    job = jobs.job
    code, out, err = run(
        capsys, "spans", "--job", job.job, "--kind", "llm_request", "--status", "429", "--server", server.http_url
    )
    assert code == 0, err
    lines = [line for line in out.splitlines() if "│" in line and "time (UTC)" not in line]
    assert len(lines) == 2 and out.startswith("2 event(s)")
    assert all("chat gpt-5" in line and "429" in line and job.limited in line for line in lines)
    assert "chat gpt-5 2" not in out and job.resolved not in out  # the limited trial's 200 call, the other trial


def test_json_is_the_routes_answer(server, jobs, capsys):
    params = {"job": jobs.job.job, "kind": "llm_request", "status": "429"}
    code, out, _ = run(
        capsys,
        "spans",
        "--job",
        jobs.job.job,
        "--kind",
        "llm_request",
        "--status",
        "429",
        "--server",
        server.http_url,
        "--json",
    )
    assert code == 0
    printed = json.loads(out)
    assert printed == api(server, **params, limit=100)
    assert [e["name"] for e in printed["items"]] == ["chat gpt-5 0", "chat gpt-5 1"]
    assert {e["http_status"] for e in printed["items"]} == {429}


def test_the_tool_calls_of_a_trial_by_category(server, jobs, capsys):
    trial = jobs.job.resolved
    code, out, _ = run(capsys, "spans", "--trial", trial, "--kind", "tool", "--server", server.http_url, "--json")
    assert code == 0
    assert [e["tool"]["name"] for e in json.loads(out)["items"]] == ["Read", "Edit", "Bash", "Read"]
    code, out, _ = run(
        capsys, "spans", "--trial", trial, "--kind", "tool", "--category", "read", "--server", server.http_url
    )
    assert code == 0
    rows = [line for line in out.splitlines() if "│ tool " in line]
    assert len(rows) == 2 and all("Read (read)" in r for r in rows)
    assert "Edit" not in out and "Bash" not in out


def test_since_and_until_narrow_the_window(server, jobs, capsys):
    # The limited trial's model calls start at 00:00:35, :36 and :37 on 2025-12-01 (tests/query/job_stream.py).
    code, out, _ = run(
        capsys,
        "spans",
        "--trial",
        jobs.job.limited,
        "--kind",
        "llm_request",
        "--since",
        "2025-12-01T00:00:36Z",
        "--until",
        "2025-12-01T00:00:37Z",
        "--server",
        server.http_url,
        "--json",
    )
    assert code == 0
    assert [e["name"] for e in json.loads(out)["items"]] == ["chat gpt-5 1"]


def test_a_time_without_a_zone_is_utc_whatever_the_servers_zone(server, jobs, capsys, monkeypatch):
    monkeypatch.setenv("TZ", "Asia/Tokyo")  # the server runs in this process: UTC+9 for it now
    time.tzset()
    try:
        code, out, _ = run(
            capsys,
            "spans",
            "--trial",
            jobs.job.limited,
            "--kind",
            "llm_request",
            "--since",
            "2025-12-01T00:00:36",
            "--until",
            "2025-12-01T00:00:37",
            "--server",
            server.http_url,
            "--json",
        )
    finally:
        monkeypatch.undo()
        time.tzset()
    assert code == 0
    assert [e["name"] for e in json.loads(out)["items"]] == ["chat gpt-5 1"]


def test_limit_and_cursor_page_through_in_order(server, jobs, capsys):
    everything = api(server, job=jobs.job.job, limit=1000)["items"]
    assert len(everything) > 6
    code, out, _ = run(capsys, "spans", "--job", jobs.job.job, "--limit", "4", "--server", server.http_url, "--json")
    first = json.loads(out)
    assert code == 0 and len(first["items"]) == 4 and first["next_cursor"]
    code, out, _ = run(
        capsys,
        "spans",
        "--job",
        jobs.job.job,
        "--limit",
        "2",
        "--cursor",
        first["next_cursor"],
        "--server",
        server.http_url,
        "--json",
    )
    assert code == 0
    assert first["items"] + json.loads(out)["items"] == everything[:6]
    code, out, _ = run(capsys, "spans", "--job", jobs.job.job, "--limit", "4", "--server", server.http_url)
    assert "more with --cursor " + first["next_cursor"] in out


def test_pages_follow_the_cursor_up_to_the_limit(server, jobs):
    everything = api(server, job=jobs.job.job, limit=1000)["items"]
    args = argparse.Namespace(server=server.http_url, token=None, data_dir=None, clickhouse_url=None)
    with Api(args, "spans") as spans:
        followed = spans.pages("/api/spans", limit=7, page=2, job=jobs.job.job)
        whole = spans.pages("/api/spans", limit=None, page=3, job=jobs.job.job)
    assert followed["items"] == everything[:7] and followed["next_cursor"]
    assert whole == {"items": everything, "next_cursor": None}


def test_an_unknown_trial_or_job_is_one_line_and_exit_1(server, jobs, capsys):
    code, out, err = run(capsys, "spans", "--trial", "no-such-trial", "--server", server.http_url)
    assert (code, out) == (1, "") and err.count("\n") == 1 and "no-such-trial" in err
    code, out, err = run(capsys, "spans", "--job", "no-such-job", "--server", server.http_url)
    assert (code, out) == (1, "") and err.count("\n") == 1 and "no-such-job" in err


def test_a_known_trial_with_no_events_of_a_kind_is_an_empty_table(server, jobs, capsys):
    code, out, _ = run(
        capsys, "spans", "--trial", jobs.job.resolved, "--kind", "compaction", "--server", server.http_url
    )
    assert code == 0 and "0 event(s)" in out
