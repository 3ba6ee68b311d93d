"""A running trial (no result.json) becomes what a live harness had sent so far: the phases that
ended, the agent's steps, never an ended `harbor.trial` root; its log files ride as log records."""

from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import ExportLogsServiceRequest
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

from harborlight.transfer import harbor_logs
from harborlight.transfer.harbor_import import context_of
from harborlight.transfer.harbor_read import read_job
from harborlight.transfer.harbor_spans import trial_requests
from tests.importers.harbor_job import write_job


def _names(bodies: list[bytes]) -> list[str]:
    spans = [
        s
        for b in bodies
        for rs in ExportTraceServiceRequest.FromString(b).resource_spans
        for ss in rs.scope_spans
        for s in ss.spans
    ]
    return [s.name for s in spans]


def _running(tmp_path):
    job = read_job(write_job(tmp_path, "running-job"))
    (trial,) = [t for t in job.trials if t.result is None]
    return job, trial


def test_running_trial_sends_ended_phases_and_steps_but_no_root(tmp_path):
    job, trial = _running(tmp_path)
    names = _names(trial_requests(context_of(job), trial, 2))
    assert "harbor.trial" not in names and "harbor.agent_execution" not in names
    assert names[:2] == ["harbor.environment_setup", "harbor.agent_setup"]
    assert "invoke_agent claude-code" in names and names.count("execute_tool Read") == 1


def test_a_verifier_file_ends_the_agent_phase(tmp_path):
    job, trial = _running(tmp_path)
    (job.path / trial.name / "verifier" / "test-stdout.txt").write_text("running tests\n")
    job = read_job(job.path)
    (trial,) = [t for t in job.trials if t.result is None]
    names = _names(trial_requests(context_of(job), trial, 2))
    assert "harbor.agent_execution" in names and "harbor.verifier" not in names and "harbor.trial" not in names


def test_a_trial_with_no_step_yet_sends_nothing(tmp_path):
    job, trial = _running(tmp_path)
    (job.path / trial.name / "agent" / "trajectory.json").unlink()
    (trial,) = [t for t in read_job(job.path).trials if t.result is None]
    assert trial_requests(context_of(job), trial, 2) == []


def test_long_logs_are_split_and_joined_verbatim():
    text = "é\r\n" * 200_000 + "tail"
    request = ExportLogsServiceRequest.FromString(
        harbor_logs.log_request({"harbor.job.name": "j"}, harbor_logs.JOB_LOG, text, 7)
    )
    records = request.resource_logs[0].scope_logs[0].log_records
    assert len(records) > 1
    rows = [
        (r.time_unix_nano, r.attributes[0].value.int_value, r.attributes[1].value.int_value, r.body.string_value)
        for r in records
    ]
    assert harbor_logs.joined(rows) == text
    # A later copy wins once complete; an incomplete one is passed over.
    assert harbor_logs.joined([*rows, (9, 0, 1, "newer")]) == "newer"
    assert harbor_logs.joined([*rows, (9, 0, 2, "half")]) == text
