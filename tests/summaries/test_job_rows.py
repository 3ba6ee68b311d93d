"""A job's stored row (job_rows, what the API answers and the dashboards read with a plain SELECT) follows
its trials: a late reward changes it, and a store from before job rows gets them on start."""

import time

import httpx

from tests.agent.otlp_build import Traces
from tests.summaries.test_restart import _in_store, _trial
from tests.support.servers import SubprocessServer, free_port

STORED = (
    "SELECT n_trials, n_running, raw_solve_rate, adjusted_solve_rate, counts['resolved'], n_infra "
    "FROM job_rows FINAL WHERE job = {j:String}"
)


def _api_job(server, job: str) -> dict:
    reply = httpx.get(f"{server.http_url}/api/jobs/{job}", timeout=120)
    assert reply.status_code == 200, reply.text
    return {k: v["value"] if isinstance(v, dict) and "provenance" in v else v for k, v in reply.json().items()}


def _shown(api: dict) -> tuple:
    return (
        api["n_trials"],
        api["n_running"],
        api["raw_solve_rate"],
        api["adjusted_solve_rate"],
        api["counts"]["resolved"],
        api["n_infra"],
    )


def test_a_late_reward_changes_the_stored_job_row(server, unique):
    job = f"job-{unique}"
    _trial(job, f"{unique}-solved", 1.0).send(server)
    late = Traces(
        {
            "service.name": "harness",
            "harbor.job.name": job,
            "harbor.trial.name": f"{unique}-late",
            "harbor.task.name": "fix-bug",
        }
    )
    root = late.span("harbor.trial", start_ms=0, dur_ms=9_000)
    late.span("harbor.agent_execution", parent=root, start_ms=100, dur_ms=5_000)
    late.send(server)
    before = _api_job(server, job)
    assert server.sql(STORED, j=job) == [_shown(before)]
    assert _shown(before)[:3] == (2, 0, 0.5)  # a finished trial without a verdict is not solved

    verdict = Traces(late.resource, trace_id=late.trace_id)  # the verifier's span, exported after the root
    verdict.span("harbor.verifier", {"harbor.reward.reward": 1.0}, parent=root, start_ms=5_200, dur_ms=3_000)
    verdict.send(server)
    after = _api_job(server, job)
    assert _shown(after)[:3] == (2, 0, 1.0)
    assert server.sql(STORED, j=job) == [_shown(after)]


def test_a_store_from_before_job_rows_gets_them_on_start(tmp_path, unique):
    data_dir = tmp_path / "store"
    server = SubprocessServer(data_dir).start()
    job = f"job-{unique}"
    for n, reward in enumerate((1.0, 0.0, 1.0, 1.0)):
        _trial(job, f"{unique}-{n}", reward).send(server)
    expected = _shown(_api_job(server, job))
    assert expected[:3] == (4, 0, 0.75)
    assert server.stop() == 0
    # Back to schema 5: trial rows stored, no job rows (what every store written before them holds).
    _in_store(
        data_dir,
        """
        client.command("DROP TABLE job_rows")
        client.command("DELETE FROM harborlight_schema_migrations WHERE Version = 6")
        print(json.dumps(0))
    """,
    )

    sql_port = free_port()
    server = SubprocessServer(data_dir, ("--clickhouse-http-port", str(sql_port))).start()
    try:
        # No API read first: the server derives the rows by itself, for the dashboards' plain SELECT (read
        # here as Grafana reads, over the ClickHouse HTTP interface).
        query = STORED.replace("{j:String}", f"'{job}'") + " FORMAT JSONCompact"
        deadline, shown = time.monotonic() + 120, []
        while not shown and time.monotonic() < deadline:
            reply = httpx.post(f"http://127.0.0.1:{sql_port}/", content=query, timeout=120)
            assert reply.status_code == 200, reply.text
            shown = reply.json()["data"]
            time.sleep(0.2)
    finally:
        assert server.stop() == 0
    assert [tuple(shown[0])] == [expected]


def test_rows_derived_by_older_code_are_derived_again_on_start(tmp_path, unique):
    """A store whose rows were derived before a field was added (here: a trial row without `n_steps`, as
    every row stored before a new field is) gets every row derived again after its start."""
    data_dir = tmp_path / "store"
    server = SubprocessServer(data_dir).start()
    job = f"job-{unique}"
    for n in range(2):
        _trial(job, f"{unique}-{n}", 1.0).send(server)
    _api_job(server, job)
    assert server.stop() == 0
    _in_store(
        data_dir,
        """
        columns = [r[0] for r in client.query("DESCRIBE TABLE trial_rows").result_rows if r[2] == ""]
        rows = client.query(f"SELECT {', '.join(columns)} FROM trial_rows FINAL").result_rows
        at = columns.index("Row")
        older = []
        for row in rows:
            fields = json.loads(row[at])
            del fields["n_steps"]
            older.append([*row[:at], json.dumps(fields), *row[at + 1:]])
        client.insert("trial_rows", [[r[0], r[1], r[2], r[3] + 1, *r[4:]] for r in older], column_names=columns)
        print(json.dumps(len(older)))
    """,
    )

    sql_port = free_port()
    server = SubprocessServer(data_dir, ("--clickhouse-http-port", str(sql_port))).start()
    try:
        query = f"SELECT countIf(JSONHas(Row, 'n_steps')) FROM trial_rows FINAL WHERE job = '{job}' FORMAT JSONCompact"
        deadline, derived = time.monotonic() + 120, 0
        while derived < 2 and time.monotonic() < deadline:
            reply = httpx.post(f"http://127.0.0.1:{sql_port}/", content=query, timeout=120)
            assert reply.status_code == 200, reply.text
            derived = reply.json()["data"][0][0]
            time.sleep(0.2)
    finally:
        assert server.stop() == 0
    assert derived == 2


def test_asking_for_a_job_that_never_was_stores_nothing(server, unique):
    job = f"never-{unique}"
    reply = httpx.get(f"{server.http_url}/api/jobs/{job}", timeout=120)
    assert reply.status_code == 404 and job in reply.text
    assert server.sql("SELECT count() FROM job_rows WHERE job = {j:String}", j=job) == [(0,)]
