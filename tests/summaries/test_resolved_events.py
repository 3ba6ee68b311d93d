"""The resolved events the keeper writes when a trial's events change (resolved_events, which every reader selects)
are exactly what the read-time rule gives over the same store (harborlight/agent/twins.py `events` and
`outer_tellings` in the form that reads renames and earlier runs itself): on real agents' recorded telemetry, a
twin that arrives after its call, a trace whose naming root arrives last, a session named after its records, a
retried trial, Harbor's job directory imported, a trial streamed live and its job directory imported after, and
after a kill between the commit and the keeper's write. The read-time rows take the kinds
their traces' trees tell (harborlight/summaries/tree_kinds.py), as the keeper stores them."""

import httpx
import pytest

from harborlight.agent import twins as agent_twins
from harborlight.read.statements.agent_events import COLUMNS, from_row
from harborlight.read.statements.trace_tree import node_key
from harborlight.sql_text import Sql
from harborlight.summaries.tree_kinds import tree_changes
from tests.agent.otlp_build import Traces
from tests.agent.test_twins import _claude_code
from tests.importers.harbor_job import import_job
from tests.importers.test_harbor_session_link import RUNS, _stream_then_import
from tests.real_agents.cases import replayed
from tests.summaries.test_restart import _in_store
from tests.support.servers import SubprocessServer

_TRIAL = Sql("Tenant = '' AND TrialName = {trial:String}")
_COMPARED = COLUMNS + ", _twin_id"
_READ_TIME = f"""
SELECT {_COMPARED} FROM ({agent_twins.events(_TRIAL, agent_twins.ALONE, twin_ids=True, scope=_TRIAL).text})
UNION ALL
SELECT {_COMPARED} FROM (SELECT *, '' AS _twin_id FROM ({agent_twins.outer_tellings(_TRIAL, scope=_TRIAL).text}))"""
_RESOLVED = f"""
SELECT {COLUMNS}, TwinId FROM resolved_events FINAL
WHERE Tenant = '' AND TrialKey = {{trial:String}} AND TrialName = {{trial:String}}"""


def _comparable(rows: list[tuple]) -> list[tuple]:
    """The rows in one order, the Provenance maps as sorted pairs."""
    return sorted(tuple(tuple(sorted(v.items())) if isinstance(v, dict) else v for v in r) for r in rows)


_KIND = 5  # Kind among the compared columns


def _tree_kinds(rows: list[tuple]) -> list[tuple]:
    """The read-time rows with the kinds their traces' trees tell."""
    events = [from_row(r) for r in rows]
    kinds = tree_changes(events)
    return [(*r[:_KIND], kinds.get(node_key(e), r[_KIND]), *r[_KIND + 1 :]) for r, e in zip(rows, events, strict=True)]


def _rows(server, sql: str, trial: str) -> list[tuple]:
    return _comparable(server.sql(sql, trial=trial))


def assert_resolved_as_read(server, trial: str) -> int:
    resolved, read_time = _rows(server, _RESOLVED, trial), _comparable(_tree_kinds(server.sql(_READ_TIME, trial=trial)))
    assert resolved == read_time
    return len(resolved)


# The names a trial's resolved records were stored under (a live record streamed without the trial's name goes by
# its session or its trace until the resolution names it after the trial), and the read-time rule over every
# record stored under those names, as the keeper reads them; of its rows, the trial's.
_STORED_NAMES = f"""
SELECT DISTINCT coalesce(TrialName, TraceId) FROM agent_events
WHERE Tenant = '' AND EventId IN (SELECT EventId FROM ({_RESOLVED}))"""
_NAMES = Sql(
    "Tenant = '' AND (TrialName IN {names:Array(String)} OR (TrialName IS NULL AND TraceId IN {names:Array(String)}))"
)
_READ_TIME_OF_NAMES = f"""
SELECT * FROM (
    SELECT {_COMPARED} FROM ({agent_twins.events(_NAMES, agent_twins.ALONE, twin_ids=True, scope=_NAMES).text})
    UNION ALL
    SELECT {_COMPARED} FROM (SELECT *, '' AS _twin_id FROM ({agent_twins.outer_tellings(_NAMES, scope=_NAMES).text})))
WHERE TrialName = {{trial:String}}"""


def assert_named_records_resolved_as_read(server, trial: str) -> int:
    """As assert_resolved_as_read, for a trial whose records were stored under other names too."""
    names = [trial] + [n for (n,) in server.sql(_STORED_NAMES, trial=trial)]
    resolved = _rows(server, _RESOLVED, trial)
    read_time = _comparable(_tree_kinds(server.sql(_READ_TIME_OF_NAMES, trial=trial, names=names)))
    assert resolved == read_time
    return len(resolved)


@pytest.mark.parametrize(
    "stem",
    [
        "claude-code-2.1.197-edit-grpc",
        "codex-0.171.0-edit-grpc",
        "gemini-cli-0.61.0-three-turn-grpc",
        "qwen-coder-0.24.4-edit-grpc",
        "opencode-1.18.33-edit-http",
    ],
)
def test_a_real_agents_trial_resolves_as_the_read_time_rule_reads_it(server, tmp_path, stem):
    case = replayed(stem, server, tmp_path)
    assert assert_resolved_as_read(server, case.recording.trial) > 0


_COST = 26  # CostUsd among the compared columns (harborlight/read/statements/agent_events.py COLUMNS)


def test_twins_that_arrive_after_their_calls_change_the_resolved_rows(server, unique):
    trial = f"{unique}-late-twins"
    spans, events = _claude_code({"harbor.job.name": f"job-{unique}", "harbor.trial.name": trial})
    spans.send(server)
    before = {r[0]: r for r in server.sql(_RESOLVED, trial=trial)}
    assert assert_resolved_as_read(server, trial) == len(before)
    events.send(server)
    after = {r[0]: r for r in server.sql(_RESOLVED, trial=trial)}
    assert assert_resolved_as_read(server, trial) == len(after)
    paired = [r for r in after.values() if r[-1]]
    assert paired and all(r[0] in before and before[r[0]][-1] == "" for r in paired)  # the spans, now paired
    assert any(r[_COST] is not None and before[r[0]][_COST] is None for r in paired)  # the cost is the event's


def test_records_named_after_their_trace_move_when_the_naming_root_arrives(server, unique):
    resource = {"service.name": f"agent-{unique}"}
    children = Traces(resource)
    root = b"r" * 8
    children.span("chat m", {"gen_ai.operation.name": "chat", "gen_ai.usage.input_tokens": 7}, parent=root, dur_ms=200)
    children.send(server)
    trace = children.trace_id.hex()
    assert assert_resolved_as_read(server, trace) == 1
    named = Traces(
        {**resource, "harbor.job.name": f"job-{unique}", "harbor.trial.name": f"{unique}-named"},
        trace_id=children.trace_id,
    )
    named.span("invoke_agent solver", {"gen_ai.operation.name": "invoke_agent"}, span_id=root, dur_ms=5000)
    named.send(server)
    assert server.sql(_RESOLVED, trial=trace) == []  # nothing is left under the trace's name
    assert assert_resolved_as_read(server, f"{unique}-named") == 2


def test_the_earlier_run_of_a_retried_trial_is_left_out(server, unique):
    trial = f"{unique}-retried"
    resource = {"service.name": "harness", "harbor.job.name": f"job-{unique}", "harbor.trial.name": trial}
    first = Traces(resource)
    root = first.span("harbor.trial", start_ms=0, dur_ms=3000)
    first.span("harbor.agent_execution", parent=root, start_ms=100, dur_ms=2000)
    agent = Traces({**resource, "service.name": f"agent-{unique}"})
    agent.span("chat m", {"gen_ai.operation.name": "chat", "gen_ai.usage.input_tokens": 5}, start_ms=500, dur_ms=100)
    first.send(server)
    agent.send(server)
    assert any(r[5] == "llm_request" for r in server.sql(_RESOLVED, trial=trial))
    second = Traces(resource)
    again = second.span("harbor.trial", start_ms=5000, dur_ms=3000)
    second.span("harbor.agent_execution", parent=again, start_ms=5100, dur_ms=2000)
    second.send(server)
    assert assert_resolved_as_read(server, trial) == 2  # the second run's root and phase only
    assert not any(r[5] == "llm_request" for r in server.sql(_RESOLVED, trial=trial))


def test_a_server_killed_before_the_keeper_wrote_resolves_on_start(tmp_path, unique):
    data_dir = tmp_path / "store"
    server = SubprocessServer(data_dir).start()
    trial = f"{unique}-killed"
    spans, events = _claude_code({"harbor.job.name": f"job-{unique}", "harbor.trial.name": trial})
    spans.send(server)
    events.send(server)
    server.kill()  # acknowledged, stored perhaps, resolved perhaps not
    server = SubprocessServer(data_dir).start()
    assert httpx.get(f"{server.http_url}/api/trials/{trial}").status_code == 200  # a read waits for the keeper
    assert server.stop() == 0
    resolved, read_time = _in_store(
        data_dir,
        f"""
        from tests.summaries.test_resolved_events import _READ_TIME, _RESOLVED, _comparable, _tree_kinds
        trial = {{"trial": {trial!r}}}
        rows = [_comparable(client.query(_RESOLVED, parameters=trial).result_rows),
                _comparable(_tree_kinds(client.query(_READ_TIME, parameters=trial).result_rows))]
        print(json.dumps(rows, default=str))
        """,
    )
    assert resolved == read_time and len(resolved) > 0


def test_a_harbor_job_directory_resolves_as_the_read_time_rule_reads_it(server, tmp_path, capsys, unique):
    job = f"resolved-harbor-{unique}"
    import_job(capsys, server, tmp_path, job, "hello-world")
    trials = [t["trial"] for t in httpx.get(f"{server.http_url}/api/jobs/{job}/trials").json()["items"]]
    assert len(trials) == 4
    for trial in trials:
        assert assert_resolved_as_read(server, trial) > 0, trial


@pytest.mark.parametrize("agent", RUNS)
def test_a_trial_streamed_live_then_imported_resolves_as_the_read_time_rule_reads_it(server, tmp_path, unique, agent):
    """Each call told live and retold by the trajectory of the job directory imported after: counted once."""
    _, _, _, job_dir, _ = _stream_then_import(server, tmp_path, f"resolved-joined-{agent}-{unique}", agent)
    trial = next(d.name for d in job_dir.iterdir() if d.is_dir())
    assert assert_named_records_resolved_as_read(server, trial) > 0
