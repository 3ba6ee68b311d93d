"""A store is brought up to date on start: one from before trial summaries gets its arrival counts from
its events (the same counts before and after) and every trial's row; a server killed between storing a
trial's events and deriving its row derives it on the next start, and no name is left stale."""

import json
import subprocess
import sys
import textwrap

import httpx

from tests.agent.otlp_build import Traces
from tests.support.servers import SubprocessServer

_COUNTS = """
SELECT (SELECT count() FROM agent_events), (SELECT sum(Arrived) FROM trial_arrivals),
       (SELECT count() FROM ({stale})), (SELECT count() FROM trial_rows FINAL)
"""


def _in_store(data_dir, code: str) -> object:
    """Runs `code` (with `client` open on the store) in a process of its own; returns what it prints, as JSON."""
    script = textwrap.dedent("""
        import json, sys
        from pathlib import Path
        from harborlight.store import ensure_schema, open_client
        from harborlight.read.statements.trial_summary_sql import STALE
        client = open_client(Path(sys.argv[1])).client
    """) + textwrap.dedent(code)
    out = subprocess.run([sys.executable, "-c", script, str(data_dir)], capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def _counts(data_dir) -> list[int]:
    """(agent events, arrivals counted, stale trial names, stored trial rows)."""
    return _in_store(
        data_dir,
        f"""
        sql = {_COUNTS!r}.replace("{{stale}}", STALE.replace("{{tenant:String}}", "''"))
        print(json.dumps(list(client.query(sql).result_rows[0])))
    """,
    )


def _trial(job: str, trial: str, reward: float) -> Traces:
    harness = Traces(
        {"service.name": "harness", "harbor.job.name": job, "harbor.trial.name": trial, "harbor.task.name": "fix-bug"}
    )
    root = harness.span("harbor.trial", start_ms=0, dur_ms=9_000)
    harness.span("harbor.agent_execution", parent=root, start_ms=100, dur_ms=5_000)
    harness.span(
        "chat gpt-5",
        {"gen_ai.operation.name": "chat", "gen_ai.usage.input_tokens": 100},
        parent=root,
        start_ms=200,
        dur_ms=100,
    )
    harness.span("harbor.verifier", {"harbor.reward.reward": reward}, parent=root, start_ms=5_200, dur_ms=3_000)
    return harness


def _rows(server, job: str) -> dict[str, tuple]:
    reply = httpx.get(f"{server.http_url}/api/jobs/{job}/trials", timeout=120)
    assert reply.status_code == 200, reply.text
    return {r["trial"]: (r["outcome"]["value"], r["n_input_tokens"]["value"]) for r in reply.json()["items"]}


def test_a_store_from_before_trial_summaries_is_brought_up_to_date(tmp_path, unique):
    data_dir = tmp_path / "store"
    server = SubprocessServer(data_dir).start()
    job = f"job-{unique}"
    for n, reward in enumerate((1.0, 0.0, 1.0)):
        _trial(job, f"{unique}-{n}", reward).send(server)
    assert server.stop() == 0
    # Back to schema 4: no trial summaries at all (what every store written before them holds).
    _in_store(
        data_dir,
        """
        for view in ("trial_arrivals_mv",):
            client.command(f"DROP VIEW {view}")
        for table in ("trial_arrivals", "trial_summarized", "trial_rows"):
            client.command(f"DROP TABLE {table}")
        client.command("DELETE FROM harborlight_schema_migrations WHERE Version = 5")
        print(json.dumps(client.query("SELECT count() FROM agent_events").result_rows[0][0]))
    """,
    )
    events_before = _in_store(
        data_dir, 'print(json.dumps(client.query("SELECT count() FROM agent_events").result_rows[0][0]))'
    )

    server = SubprocessServer(data_dir).start()
    assert _rows(server, job) == {
        f"{unique}-0": ("resolved", 100),
        f"{unique}-1": ("failed_verification", 100),
        f"{unique}-2": ("resolved", 100),
    }
    assert server.stop() == 0
    assert _counts(data_dir) == [events_before, events_before, 0, 3]


def test_a_server_killed_before_deriving_the_rows_derives_them_on_start(tmp_path, unique):
    data_dir = tmp_path / "store"
    server = SubprocessServer(data_dir).start()
    job = f"job-{unique}"
    for n in range(4):
        _trial(job, f"{unique}-{n}", 1.0).send(server)
    server.kill()  # acknowledged, stored, and perhaps not derived yet

    server = SubprocessServer(data_dir).start()
    assert _rows(server, job) == {f"{unique}-{n}": ("resolved", 100) for n in range(4)}
    assert server.stop() == 0
    events, arrived, stale, stored = _counts(data_dir)
    assert (arrived, stale, stored) == (events, 0, 4)


_PARTS = "SELECT count() FROM system.parts WHERE database = currentDatabase() AND table = {table:String} AND active"
_COMPACTED = ("resolved_events", "call_rollups")  # the tables a resolution writes every row of


def test_a_store_resolved_anew_on_start_keeps_one_version_of_each_row(tmp_path, unique):
    """A changed resolution writes every resolved row and every call rollup again; the store is left with each row
    once, not two versions every read with FINAL merges until the engine's merges catch up."""
    data_dir = tmp_path / "store"
    server = SubprocessServer(data_dir).start()
    job = f"job-{unique}"
    for n in range(4):  # several commits: several parts
        _trial(job, f"{unique}-t{n}", 1.0).send(server)
    assert len(_rows(server, job)) == 4
    assert server.stop() == 0
    rows = _in_store(
        data_dir,
        f"""
        client.command("INSERT INTO harborlight_resolved_rule (Hash) VALUES ('an older resolution')")
        print(json.dumps([client.query(f"SELECT count() FROM {{t}} FINAL").result_rows[0][0] for t in {_COMPACTED!r}]))
        """,
    )
    assert rows[1] == 4  # one model call a trial, one minute
    server = SubprocessServer(data_dir).start()
    assert len(_rows(server, job)) == 4  # a read waits for the keeper
    assert server.stop() == 0
    assert _in_store(
        data_dir,
        f"""
        found = []
        for table in {_COMPACTED!r}:
            parts, = client.query({_PARTS!r}, parameters={{"table": table}}).result_rows[0]
            stored, = client.query(f"SELECT count() FROM {{table}}").result_rows[0]
            found.append([parts, stored])
        print(json.dumps(found))
        """,
    ) == [[1, rows[0]], [1, rows[1]]]
