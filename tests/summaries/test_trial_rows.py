"""A trial's stored row (trial_rows, what the API, the reports and the dashboards read) follows its events:
a late span or a late reward changes it, and the twin rule counts the same from the stored rows as from
the events themselves."""

import httpx

from harborlight.read.statements.load_trials import load_trials
from tests.agent.otlp_build import Traces
from tests.live.twin_job import N_CALLS, send_twin_job, trial_names

STORED = (
    "SELECT outcome, reward, n_input_tokens, n_steps, n_tool_calls, cost_usd FROM trial_rows FINAL "
    "WHERE job = {j:String} AND trial = {t:String}"
)


def _api_row(server, trial: str) -> dict:
    reply = httpx.get(f"{server.http_url}/api/trials/{trial}", timeout=60)
    assert reply.status_code == 200, reply.text
    return reply.json()


def _harness(job: str, trial: str) -> Traces:
    return Traces(
        {"service.name": "harness", "harbor.job.name": job, "harbor.trial.name": trial, "harbor.task.name": "fix-bug"}
    )


def test_a_late_reward_changes_the_stored_trial_row(server, unique):
    job, trial = f"job-{unique}", f"{unique}-late-reward"
    harness = _harness(job, trial)
    root = harness.span("harbor.trial", start_ms=0, dur_ms=9_000)
    harness.span("harbor.agent_execution", parent=root, start_ms=100, dur_ms=5_000)
    harness.send(server)
    assert _api_row(server, trial)["outcome"]["value"] == "unknown"
    assert server.sql(STORED, j=job, t=trial)[0][:2] == ("unknown", None)

    late = Traces(harness.resource, trace_id=harness.trace_id)  # the verifier's span, exported after the root
    late.span("harbor.verifier", {"harbor.reward.reward": 1.0}, parent=root, start_ms=5_200, dur_ms=3_000)
    late.send(server)
    row = _api_row(server, trial)
    assert (row["outcome"]["value"], row["reward"]["value"]) == ("resolved", 1.0)
    assert server.sql(STORED, j=job, t=trial)[0][:2] == ("resolved", 1.0)


def test_a_late_model_call_changes_the_stored_trial_row(server, unique):
    job, trial = f"job-{unique}", f"{unique}-late-span"
    harness = _harness(job, trial)
    root = harness.span("harbor.trial", start_ms=0, dur_ms=9_000)
    harness.span("harbor.agent_execution", parent=root, start_ms=100, dur_ms=5_000)
    agent = Traces({**harness.resource, "service.name": f"agent-{unique}"}, trace_id=harness.trace_id)
    call = {
        "gen_ai.operation.name": "chat",
        "gen_ai.request.model": "gpt-5",
        "gen_ai.usage.input_tokens": 1000,
        "gen_ai.usage.output_tokens": 10,
    }
    agent.span("chat gpt-5", call, parent=root, start_ms=200, dur_ms=100)
    harness.send(server)
    agent.send(server)
    assert _api_row(server, trial)["n_input_tokens"]["value"] == 1000

    late = Traces(agent.resource, trace_id=harness.trace_id)
    late.span("chat gpt-5", call | {"gen_ai.usage.input_tokens": 500}, parent=root, start_ms=400, dur_ms=100)
    late.send(server)
    assert _api_row(server, trial)["n_input_tokens"]["value"] == 1500
    assert server.sql(STORED, j=job, t=trial)[0][2:4] == (1500, 2)


def test_the_twin_rule_counts_the_same_from_stored_rows_as_from_events(server, unique):
    job = f"twins-{unique}"
    send_twin_job(server, job)
    reply = httpx.get(f"{server.http_url}/api/jobs/{job}/trials", timeout=60)
    assert reply.status_code == 200, reply.text
    api = {r["trial"]: r for r in reply.json()["items"]}
    from_events = {t.facts.trial: t.facts for t in load_trials(server.store.client, "", jobs=[job])}
    assert set(api) == set(from_events) >= set(trial_names(job))
    for name in trial_names(job):
        stored = server.sql(STORED, j=job, t=name)[0]
        facts = from_events[name]
        assert stored[3:] == (facts.n_steps, facts.n_tool_calls, facts.cost_usd)
        assert (api[name]["n_steps"]["value"], api[name]["n_tool_calls"]["value"]) == (N_CALLS, N_CALLS)
        assert stored[3:5] == (N_CALLS, N_CALLS)  # each call told twice counts once


def test_a_trial_renamed_away_leaves_no_stored_row(server, unique):
    """A record named after its trace is that trial until the trace's root names it (Harbor's ATIF
    converter puts session.id on the root only): then the trace's trial takes its records, and the trial
    that was named after the trace id is gone from the stored rows too."""
    job = f"job-{unique}"
    agent = Traces({"service.name": f"agent-{unique}", "harbor.job.name": job})
    root_id = b"\x01" * 8
    agent.span(
        "chat gpt-5",
        {"gen_ai.operation.name": "chat", "gen_ai.request.model": "gpt-5", "gen_ai.usage.input_tokens": 7},
        parent=root_id,
        start_ms=100,
        dur_ms=50,
    )
    agent.send(server)
    trace_named = agent.trace_id.hex()
    listed = httpx.get(f"{server.http_url}/api/jobs/{job}/trials", timeout=60).json()["items"]
    assert [r["trial"] for r in listed] == [trace_named]

    named = Traces(agent.resource, trace_id=agent.trace_id)
    named.span("session", {"session.id": f"{unique}-session"}, span_id=root_id, start_ms=0, dur_ms=500)
    named.send(server)
    listed = httpx.get(f"{server.http_url}/api/jobs/{job}/trials", timeout=60).json()["items"]
    assert [(r["trial"], r["n_input_tokens"]["value"]) for r in listed] == [(f"{unique}-session", 7)]
    assert server.sql("SELECT trial FROM trial_rows FINAL WHERE job = {j:String}", j=job) == [(f"{unique}-session",)]
