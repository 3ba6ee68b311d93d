"""Trial identity by process (harborlight/agent/identity.py, rules.py FACTS "trial"): a record with no trial name
and no session of its own is named after its process, service.name/service.instance.id (the OpenTelemetry SDK
sets the id per process), so one run of an app outside a harness is one trial though each of its model calls is
a trace of its own. Its trace's stronger name still wins, also when it arrives later, and a step of no agent
(kind group) is named by no process.
"""

import os
import uuid

import httpx

from tests.agent.otlp_build import Traces

CHAT = {"gen_ai.operation.name": "chat", "gen_ai.request.model": "gpt-4.1", "gen_ai.usage.input_tokens": 10}


def _process(unique: str, instance: str | None = None) -> dict:
    return {"service.name": f"app-{unique}", "service.instance.id": instance or str(uuid.uuid4())}


def _trials(server, unique: str) -> dict[str, str | None]:
    """Each span's trial, by span name, as the API reads it."""
    server.caught_up()
    reply = httpx.get(f"{server.http_url}/api/spans", params={"service": f"app-{unique}", "limit": 1000}, timeout=60)
    assert reply.status_code == 200, reply.text
    return {s["name"]: s["trial"] for s in reply.json()["items"]}


def _name(resource: dict) -> str:
    return f"{resource['service.name']}/{resource['service.instance.id']}"


def test_two_traces_of_one_process_are_one_trial(server, unique):
    process = _process(unique)
    for call in ("chat first", "chat second"):
        trace = Traces(process)  # a trace id of its own per call, as the instrumentation sends them
        trace.span(call, CHAT)
        trace.send(server)
    assert _trials(server, unique) == {"chat first": _name(process), "chat second": _name(process)}


def test_two_processes_are_two_trials(server, unique):
    first, second = _process(unique), _process(unique)
    for resource, call in ((first, "chat first"), (second, "chat second")):
        trace = Traces(resource)
        trace.span(call, CHAT)
        trace.send(server)
    assert _trials(server, unique) == {"chat first": _name(first), "chat second": _name(second)}


def test_a_process_step_of_no_agent_stays_of_no_trial(server, unique):
    """Codex's process-level roots (initialize, auth, ...) are steps (kind group), a trace each: named by no
    process, they show no trial, while its model calls are its process's."""
    process = {"service.name": f"codex_exec-{unique}", "service.instance.id": str(uuid.uuid4())}
    step = Traces(process)
    step.span("initialize")
    step.send(server)
    call = Traces(process)
    call.span("completed", CHAT)  # Codex's model call
    call.send(server)
    server.caught_up()
    reply = httpx.get(f"{server.http_url}/api/spans", params={"service": process["service.name"]}, timeout=60)
    trials = {s["name"]: (s["kind"], s["trial"]) for s in reply.json()["items"]}
    assert trials == {"initialize": ("group", None), "completed": ("llm_request", _name(process))}


def test_a_session_in_the_trace_names_its_process_records_also_when_it_comes_last(server, unique):
    """The process's records of a trace wait for its session: once it arrives they are the session's trial, and
    the process's other traces stay the process's."""
    process, session = _process(unique), f"s-{unique}"
    trace = Traces(process)
    root = trace.span("invoke_agent solver", {"gen_ai.operation.name": "invoke_agent"}, dur_ms=100)
    trace.span("chat first", CHAT, parent=root, start_ms=10)
    trace.send(server)
    other = Traces(process)
    other.span("chat other", CHAT, start_ms=200)
    other.send(server)
    assert set(_trials(server, unique).values()) == {_name(process)}

    later = Traces(process, trace_id=trace.trace_id)
    later.span("chat second", {**CHAT, "session.id": session}, parent=root, start_ms=50)
    later.send(server)
    assert _trials(server, unique) == {
        "invoke_agent solver": session,
        "chat first": session,
        "chat second": session,
        "chat other": _name(process),
    }


def test_a_measured_trial_name_in_the_trace_names_its_process_records(server, unique):
    """A harness's span in the same trace (its context passed on), its resource naming the trial, is stronger
    than the process's name."""
    process, trial = _process(unique), f"trial-{unique}"
    harness = Traces({"service.name": f"app-{unique}", "harbor.trial.name": trial})
    root = harness.span("harbor.agent_execution", dur_ms=100)
    harness.send(server)
    trace = Traces(process, trace_id=harness.trace_id)
    trace.span("chat", CHAT, parent=root, start_ms=10)
    trace.send(server)
    assert _trials(server, unique) == {"harbor.agent_execution": trial, "chat": trial}


def test_a_resource_without_an_instance_names_each_trace_as_before(server, unique):
    """Claude Code, Codex, Gemini CLI and Qwen Code name no instance: a record with no name of its own is its
    trace's, as it was."""
    traces = [Traces({"service.name": f"app-{unique}"}, trace_id=os.urandom(16)) for _ in range(2)]
    for call, trace in zip(("chat first", "chat second"), traces, strict=True):
        trace.span(call, CHAT)
        trace.send(server)
    assert _trials(server, unique) == {
        "chat first": traces[0].trace_id.hex(),
        "chat second": traces[1].trace_id.hex(),
    }
