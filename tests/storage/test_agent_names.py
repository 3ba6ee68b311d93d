"""The names table (harborlight/store/sql/agent_names.sql, fed by harborlight/agent/identity.py NAMES_VIEW): one trial's
look-up of who names its traces' and sessions' records reads the names' key ranges, not a bloom check of every
agent_events granule (which grew with the store: issue 18), and a store from before the table gets it with the
same answers on its next start, also when that start dies half-way.

The producer is real: Harbor's own ATIF-to-OTel converter, which puts `session.id` on the root span of the
trial's trace only, so every other span of the trace is named after the trace and takes the session's trial
(tests/agent/test_trace_identity.py), written through the receiver's own write path."""

import dataclasses

import clickhouse_connect
import pytest

from harborlight.agent import identity as agent_identity
from harborlight.commit.otlp_insert import insert_requests
from harborlight.sql_text import Sql
from harborlight.store import Signal, ensure_schema
from harborlight.store.schema import statement
from tests.agent.test_trace_identity import _converted
from tests.support.dies_at_insert import DiesAtInsert

_SCOPE = Sql("TrialName = {trial:String} AND JobName = {job:String}")


@pytest.fixture
def trial_store(server, store_dir, unique, tmp_path):
    """(store, params) of a database of its own holding one converted trial."""
    admin = server.store.client
    admin.command(f"CREATE DATABASE names_{unique}")
    client = clickhouse_connect.get_client(interface="chdb", path=str(store_dir.resolve()), database=f"names_{unique}")
    store = dataclasses.replace(server.store, client=client)
    ensure_schema(client)
    job, session = f"atif-{unique}", f"sess-{unique}"
    insert_requests(store, Signal.traces, [_converted(tmp_path, session, job).SerializeToString()])
    yield store, {"trial": session, "job": job}
    admin.command(f"DROP DATABASE names_{unique}")


def _answers(client, params) -> tuple[list, list]:
    """The trial's renames, and its records as every reader names them (name, job, trial, span)."""
    renames = client.query(
        f"SELECT * FROM ({agent_identity.renames(_SCOPE).text}) ORDER BY key", parameters=params
    ).result_rows
    named = client.query(
        f"SELECT JobName, TrialName, SpanId FROM ({agent_identity.named(_SCOPE).text}) WHERE {_SCOPE.text}"
        " ORDER BY SpanId",
        parameters=params,
    ).result_rows
    return renames, named


def test_the_trials_names_are_read_by_their_key_range(trial_store):
    store, params = trial_store
    renames, named = _answers(store.client, params)
    # the trace is named by its root's session, in the job and in none; every span of it goes by that trial
    assert [(job, trial) for _, _, job, trial in renames] == [(params["job"], params["trial"])] * 2
    spans = {span for (span,) in store.client.query("SELECT SpanId FROM otel_traces").result_rows}
    assert {span for _, _, span in named} == spans and {(j, t) for j, t, _ in named} == {
        (params["job"], params["trial"])
    }

    plan = [
        r[0]
        for r in store.client.query(
            f"EXPLAIN indexes = 1 {agent_identity.renames(_SCOPE).text}", parameters=params
        ).result_rows
    ]
    reads = "\n".join(plan).split("ReadFromMergeTree")[1:]
    names = [read for read in reads if read.lstrip().startswith("(names_") and ".agent_names)" in read.split("\n")[0]]
    assert names and all("Name in" in read.split("Skip")[0] for read in names), plan  # the primary key's range
    # no look-up of agent_events by the trace and session indexes (every granule checked)
    assert not any(index in line for line in plan for index in ("idx_trace_id", "idx_session_id")), plan


def _before_names(client) -> None:
    """Leaves the store as one from before the names table: no table, no view, no record of the version."""
    client.command("DROP VIEW agent_names_mv")
    client.command("DROP TABLE agent_names")
    client.command("DELETE FROM harborlight_schema_migrations WHERE Version = 8")


@pytest.mark.parametrize("dies", [None, "before", "after"])
def test_a_store_from_before_the_names_table_gets_it_with_the_same_answers(trial_store, dies):
    """Its next start makes the table and takes the stored events' names; killed before or after writing
    them, the start after completes it, and the answers are those of a store that had it all along."""
    store, params = trial_store
    client = store.client
    before = _answers(client, params)
    stored = "SELECT Tenant, Name, Job, argMinMerge(Namer) FROM agent_names GROUP BY ALL ORDER BY ALL"
    namers = client.query(stored).result_rows
    _before_names(client)
    if dies:
        with pytest.raises(KeyboardInterrupt):
            ensure_schema(DiesAtInsert(client, "INSERT INTO agent_names", after=dies == "after"))
        assert (8,) not in client.query("SELECT Version FROM harborlight_schema_migrations").result_rows
    ensure_schema(client)
    assert client.query(stored).result_rows == namers
    assert _answers(client, params) == before
    assert (8,) in client.query("SELECT Version FROM harborlight_schema_migrations").result_rows


def test_events_derived_again_take_their_names_again(trial_store):
    """Agent events an older rule table derived are deleted and derived again on start: their names are taken
    again with them, not kept from the deleted rows (a namer the new rules no longer name stays no namer)."""
    store, params = trial_store
    client = store.client
    before = _answers(client, params)
    # a stale namer: a name the stored events do not give, as rows deleted by a re-derivation would leave
    client.command(
        "INSERT INTO agent_names SELECT Tenant, Name, Job, "
        "argMinState((toNullable('other-job'), toNullable('other-trial')), "
        "(toUInt8(0), toUInt8(0), toDateTime64('2000-01-01', 9), '')) FROM agent_names GROUP BY ALL"
    )
    assert _answers(client, params) != before
    client.command("DROP VIEW agent_events_traces_mv")  # an older harborlight's view: another statement
    client.command(statement("agent_events_traces_mv").replace("'llm_request'", "'group'"))
    ensure_schema(client)
    assert _answers(client, params) == before
