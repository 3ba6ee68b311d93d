"""The query commands straight on a store directory (no server running) answer as the server did:
the same routes, mounted in the CLI's process."""

import json
import subprocess
import sys

import httpx
import pytest

from tests.cli.commands import process
from tests.cli.conftest import send_jobs
from tests.support.servers import SubprocessServer

# command line -> the route(s) whose JSON it prints with --json
QUESTIONS = {
    "spans 429": (
        lambda j: ["spans", "--job", j.job.job, "--kind", "llm_request", "--status", "429"],
        lambda j: {"/api/spans": {"job": j.job.job, "kind": "llm_request", "status": "429", "limit": 100}},
    ),
    "trial": (
        lambda j: ["trial", j.job.limited],
        lambda j: {
            f"/api/trials/{j.job.limited}": {},
            f"/api/trials/{j.job.limited}/behavior": {},
            f"/api/trials/{j.job.limited}/time": {},
        },
    ),
    "trace": (lambda j: ["trace", j.subagent], lambda j: {f"/api/trials/{j.subagent}/trace": {}}),
    "jobs": (lambda j: ["jobs"], lambda j: {"/api/jobs": {"limit": 50}}),
    "compare": (
        lambda j: ["compare", j.job.job, j.other.job],
        lambda j: {"/api/compare": {"jobs": f"{j.job.job},{j.other.job}"}},
    ),
}


@pytest.fixture(scope="module")
def closed_store(tmp_path_factory):
    """A store filled by a server that has stopped since, with what that server answered."""
    data_dir = tmp_path_factory.mktemp("cli-store") / "store"
    srv = SubprocessServer(data_dir).start()
    try:
        jobs = send_jobs(srv)
        served = {
            name: [
                httpx.get(f"{srv.http_url}{path}", params=params, timeout=60).json()
                for path, params in routes(jobs).items()
            ]
            for name, (_, routes) in QUESTIONS.items()
        }
    finally:
        assert srv.stop() == 0
    return data_dir, jobs, served


@pytest.mark.parametrize("question", QUESTIONS)
def test_json_from_the_store_equals_the_servers(closed_store, question):
    data_dir, jobs, served = closed_store
    argv, _ = QUESTIONS[question]
    done = process(*argv(jobs), "--data-dir", str(data_dir), "--json")
    assert (done.returncode, done.stderr) == (0, "")  # the answer alone: no library warning before it
    printed = json.loads(done.stdout)
    expected = served[question]
    if question == "trial":
        assert printed == {"trial": expected[0], "behavior": expected[1], "time": expected[2]}
    else:
        assert printed == expected[0]


def test_tables_from_the_store(closed_store):
    data_dir, jobs, _ = closed_store
    spans = process(
        "spans", "--job", jobs.job.job, "--kind", "llm_request", "--status", "429", "--data-dir", str(data_dir)
    )
    assert spans.returncode == 0, spans.stderr
    assert spans.stdout.startswith("2 event(s)") and spans.stdout.count("chat gpt-5 ") == 2
    trace = process("trace", jobs.subagent, "--data-dir", str(data_dir))
    assert trace.returncode == 0 and "subagent  explorer" in trace.stdout
    missing = process("trial", "no-such-trial", "--data-dir", str(data_dir))
    assert (missing.returncode, missing.stderr) == (1, "harborlight: no trial named 'no-such-trial'\n")


OLD_STORE = """
import sys
from datetime import datetime
from pathlib import Path
from harborlight.store import ensure_schema, open_client
from tests.support.old_schema import downgrade_to_schema_2
client = open_client(Path(sys.argv[1])).client
ensure_schema(client)
downgrade_to_schema_2(client)
client.insert("otel_traces", [[datetime(2025, 1, 1), "a" * 32, "b" * 16, "", "chat m", "svc",
                               {"harbor.job.name": "old-job"},
                               {"gen_ai.operation.name": "chat", "request_id": "req_1"}]],
              column_names=["Timestamp", "TraceId", "SpanId", "ParentSpanId", "SpanName", "ServiceName",
                            "ResourceAttributes", "SpanAttributes"])
client.close()
"""


def test_a_store_an_older_harborlight_wrote_is_brought_up_to_date_when_read(tmp_path):
    data_dir = tmp_path / "store"
    made = subprocess.run([sys.executable, "-c", OLD_STORE, str(data_dir)], capture_output=True, text=True, timeout=120)
    assert made.returncode == 0, made.stderr
    done = process("spans", "--job", "old-job", "--data-dir", str(data_dir), "--json")
    assert done.returncode == 0, done.stderr
    assert [(e["kind"], e["request_id"]) for e in json.loads(done.stdout)["items"]] == [("llm_request", "req_1")]
