"""`harborlight jobs` and `harborlight compare`: job rows and like-with-like comparisons."""

import io
import json

import httpx

from tests.cli.commands import run


def api(server, path: str, **params) -> dict:
    return httpx.get(f"{server.http_url}{path}", params=params, timeout=60).json()


def test_jobs_lists_solve_rates_as_the_api_does(server, jobs, capsys, monkeypatch):
    # Room for every column whatever other tests' jobs are called: a long name elsewhere in the session's
    # store (the Harbor plugin's jobs) would fold this job's name across two lines of a 160-column table.
    monkeypatch.setenv("COLUMNS", "400")
    code, out, _ = run(capsys, "jobs", "--limit", "10000", "--server", server.http_url, "--json")
    assert code == 0
    listed = {row["job"]: row for row in json.loads(out)["items"]}
    assert listed[jobs.job.job] == api(server, f"/api/jobs/{jobs.job.job}")
    code, out, _ = run(capsys, "jobs", "--limit", "10000", "--server", server.http_url)
    lines = out.splitlines()
    (at,) = [i for i, line in enumerate(lines) if f"│ {jobs.job.job} " in line]
    cells, under = ([c.strip() for c in line.strip("│").split("│")] for line in lines[at : at + 2])
    assert cells[:6] == [jobs.job.job, "5", "1", "25.0%", "50.0%", "0.500"]
    # each rate's 95% interval under it: Wilson over 4 tasks (1 resolved) and over 2 (the infra ones left out)
    assert under[3:6] == ["[4.6%, 69.9%]", "[9.5%, 90.5%]", "[0.095, 0.905]"]
    assert cells[6:8] == ["-", "-"]  # one attempt per task: no pass@k series


def test_compare_shows_rates_differences_and_the_flip(server, jobs, capsys):
    base, other = jobs.job.job, jobs.other.job
    code, out, _ = run(capsys, "compare", base, other, "--server", server.http_url, "--json")
    assert code == 0
    assert json.loads(out) == api(server, "/api/compare", jobs=f"{base},{other}")
    code, out, _ = run(capsys, "compare", base, other, "--server", server.http_url)
    assert code == 0
    assert "5 matched task(s), 1 flip(s)" in out
    (raw,) = [line for line in out.splitlines() if "raw solve rate" in line]
    assert "25.0%" in raw and "50.0% (+25.0 pts)" in raw
    (flip,) = [line for line in out.splitlines() if "add-feature" in line and "│" in line]
    assert "failed_verification" in flip and "resolved" in flip and "gained" in flip
    # the paired comparison: 2 tasks with a verdict on both sides (the infra and running tasks left out)
    (paired,) = [line for line in out.splitlines() if f"│ {other} " in line and "solve rate" in line]
    cells = [c.strip() for c in paired.strip("│").split("│")]
    assert cells == [other, "solve rate", "2 (3 left out)", "+50.0 pts", "McNemar exact", "1", "1 / 0 / 1"]
    assert (
        f"no detectable difference between {other} and {base} on these 2 tasks: solve rate +50.0 points, "
        "no interval: 2 task(s); a bootstrap over tasks needs at least 10 (McNemar exact p = 1)."
    ) in out
    assert f"  up in {other}: add-feature" in out


def test_a_long_job_name_is_never_cut_on_a_160_column_terminal(server, unique):
    from rich.console import Console

    from harborlight.cli.jobs_command import jobs_table
    from tests.agent.otlp_build import Traces

    name = f"fixture-claude-code-three-trials-2026-12-01__09-00-00-{unique}"
    traces = Traces({"service.name": "agent", "harbor.job.name": name, "harbor.trial.name": f"{name}__t1"})
    traces.span("chat m", {"gen_ai.operation.name": "chat", "gen_ai.usage.input_tokens": 3}, start_ms=0, dur_ms=5)
    traces.send(server)
    row = api(server, f"/api/jobs/{name}")
    terminal = Console(width=160, record=True, file=io.StringIO())
    terminal.print(jobs_table({"items": [row], "next_cursor": None}))
    assert any(f"│ {name} " in line for line in terminal.export_text().splitlines())


def test_counts_take_their_noun_in_the_right_number():
    from harborlight.cli.render import counted

    assert [counted(1, "step"), counted(3, "step"), counted(None, "finished trial"), counted(1200, "step")] == [
        "1 step",
        "3 steps",
        "- finished trials",
        "1,200 steps",
    ]
