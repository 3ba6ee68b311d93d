"""last_agent_message on /api/compare's task rows (behind last_message=true) and `harborlight compare
--last-message`: each job's last attempt on the task, its closing message off its trajectory. From a Harbor
job directory written with Harbor's own models (tests/importers/harbor_job.py), imported twice with
`harborlight import harbor`; the second copy's closing messages are rewritten (and validated by Harbor's
Trajectory) to name their trial, so the expected text is read off the files, never off harborlight."""

import json

import httpx
from harbor.models.trajectories import Trajectory

from tests.importers.cli import run
from tests.importers.harbor_job import write_job

NOT_ASKED = "not read: pass last_message=true (it builds one trajectory per task and job)"


def _closing(trial_dir) -> str:
    harbor = Trajectory.model_validate_json((trial_dir / "agent" / "trajectory.json").read_text())
    return [s.message for s in harbor.steps if s.source == "agent" and s.message][-1]


def _rename_closings(job_dir) -> None:
    for trial_dir in (p for p in job_dir.iterdir() if (p / "agent" / "trajectory.json").exists()):
        path = trial_dir / "agent" / "trajectory.json"
        data = json.loads(path.read_text())
        data["steps"][-1]["message"] = f"Closing words of {trial_dir.name}."
        path.write_text(json.dumps(Trajectory.model_validate(data).to_json_dict()))


def test_each_jobs_last_attempt_closing_message_on_the_task_rows(server, unique, tmp_path, capsys):
    a, b = f"cmp-msg-a-{unique}", f"cmp-msg-b-{unique}"
    dirs = {a: write_job(tmp_path / "a", a), b: write_job(tmp_path / "b", b)}
    _rename_closings(dirs[b])
    for source in dirs.values():
        assert run(capsys, "import", "harbor", str(source), "--server", server.http_url)[0] == 0

    plain = httpx.get(f"{server.http_url}/api/compare", params={"jobs": f"{a},{b}"}, timeout=120).json()
    assert plain["rows"] and all(
        r["last_agent_message"] == {j: {"value": None, "provenance": "unavailable", "note": NOT_ASKED} for j in (a, b)}
        for r in plain["rows"]
    )

    doc = httpx.get(
        f"{server.http_url}/api/compare", params={"jobs": f"{a},{b}", "last_message": "true"}, timeout=300
    ).json()
    assert {r["task"] for r in doc["rows"]} == {"hello-world", "fix-bug"}
    for row in doc["rows"]:
        for job in (a, b):
            trial = row["last_trial"][job]
            assert trial.startswith(row["task"] + "__")
            said = _closing(dirs[job] / trial)
            assert row["last_agent_message"][job] == {"value": said, "provenance": "measured", "note": None}
        assert row["last_agent_message"][b]["value"] == f"Closing words of {row['last_trial'][b]}."

    code, out, err = run(capsys, "compare", a, b, "--last-message", "--server", server.http_url)
    assert code == 0, err
    assert f"Closing words of {doc['rows'][0]['last_trial'][b]}." in " ".join(out.split())
    code, out, _ = run(capsys, "compare", a, b, "--last-message", "--json", "--server", server.http_url)
    assert json.loads(out)["rows"] == doc["rows"]
