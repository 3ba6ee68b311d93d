"""`harborlight trace TRIAL`: the span tree, a sub-agent under the tool call that spawned it."""

import json

import httpx

from tests.cli.commands import run


def depth(line: str) -> int:
    """How deep a rendered tree line is: where its label starts."""
    return next(i for i, ch in enumerate(line) if ch not in " │├└─")


def test_a_subagent_shows_under_its_tool_call(server, jobs, capsys):
    code, out, err = run(capsys, "trace", jobs.subagent, "--server", server.http_url)
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0].startswith(f"trial {jobs.subagent}: 7 event(s), 0 orphan(s)")
    totals = next(i for i, line in enumerate(lines) if line.startswith("no totals: "))  # after the tree
    assert "no totals: the producer sent no totals: no ATIF final_metrics" in lines[totals]
    labels = [(depth(line), line[depth(line) :]) for line in lines[1:totals]]
    assert labels == [
        (4, f"session  trial {jobs.subagent}  1.00 s  timing measured"),
        (8, "group  agent  900 ms  timing measured"),
        (12, "llm_request  litellm.completion  15 ms  timing measured  claude-opus-4, tokens 300 in / 20 out"),
        (12, "tool  delegate (other)  500 ms  timing measured"),
        # The rules alone call it a group (GET /api/spans says so); the tree knows it is a sub-agent.
        (16, "subagent  explorer  400 ms  timing measured"),
        (20, "llm_request  litellm.completion  100 ms  timing measured  claude-haiku-4, tokens 90 in / 9 out"),
        (20, "tool  terminal (execute)  5 ms  timing measured"),
    ]


def test_json_is_the_routes_answer(server, jobs, capsys):
    code, out, _ = run(capsys, "trace", jobs.job.failed, "--server", server.http_url, "--json")
    assert code == 0
    assert json.loads(out) == httpx.get(f"{server.http_url}/api/trials/{jobs.job.failed}/trace", timeout=60).json()
