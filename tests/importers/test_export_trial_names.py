"""Exporting a job whose trials are named like the job's own files, or too long for a directory name.

A trial named `config.json`, `result.json`, `job.log` or 300 characters long printed a traceback (its
directory collided with the job's file, or the file system refused the name). Such a trial is now
written to a directory of a safe name, its config.json and result.json still naming it, the mapping in
the job's `.harborlight-trial-names.json`; Harbor's own loaders read the job, and importing the export
gives the trials their names back."""

import json

from harbor.models.trial.config import TrialConfig
from harbor.models.trial.result import TrialResult
from harbor.upload.uploader import _load_job_from_disk

from harborlight.transfer.dir_names import trial_directory
from harborlight.transfer.harbor_read import read_job
from tests.importers.cli import run
from tests.importers.exported import view
from tests.importers.test_live_export import _stream_trial

HOSTILE = (
    "config.json",
    "result.json",
    "job.log",
    "lock.json",
    "Config.JSON",
    "x" * 300,
    "é" * 200,
    ".hidden",
    "a/b",
    "tab\there",
)


def test_trials_named_like_the_jobs_files_or_too_long_export_and_load_with_harbor(server, unique, tmp_path, capsys):
    job = f"names-{unique}"
    for name in (*HOSTILE, f"plain__{unique}"):
        _stream_trial(server, job, name)

    out = tmp_path / "jobs"
    code, stdout, err = run(capsys, "export-job", job, "--out", str(out), "--server", server.http_url)

    assert code == 0 and "Traceback" not in err, err
    assert f"({len(HOSTILE) + 1} trial(s))" in stdout
    job_dir = out / job
    assert (job_dir / f"plain__{unique}").is_dir()  # an ordinary name is its own directory
    for name in ("config.json", "result.json", "job.log"):
        assert (job_dir / name).is_file()  # the job's own files are the job's
    mapping = json.loads((job_dir / ".harborlight-trial-names.json").read_text())
    assert sorted(mapping.values()) == sorted(HOSTILE)
    for directory, name in mapping.items():
        assert directory == trial_directory(name) and len(directory.encode()) <= 255 and "/" not in directory
        assert TrialConfig.model_validate_json((job_dir / directory / "config.json").read_text()).trial_name == name

    # Harbor's uploader reads a job as every sub-directory's result.json; its viewer lists the trials.
    job_result, _, results, paths = _load_job_from_disk(job_dir)
    assert sorted(r.trial_name for r in results) == sorted((*HOSTILE, f"plain__{unique}"))
    assert job_result.n_total_trials == len(HOSTILE) + 1
    assert all(paths[r.id].parent == job_dir for r in results)
    for r in results:
        assert TrialResult.model_validate_json((paths[r.id] / "result.json").read_text()).trial_uri.endswith(
            "/" + paths[r.id].name
        )
    view(out, job)

    # Read back (what `harborlight import harbor` reads): the trials' names, not their directories'.
    assert sorted(t.name for t in read_job(job_dir).trials) == sorted((*HOSTILE, f"plain__{unique}"))

    # The API's archive holds the same directories.
    code, _, err = run(capsys, "export-job", job, "--out", str(tmp_path / "again"), "--server", server.http_url)
    assert code == 0, err
    assert sorted(p.name for p in (tmp_path / "again" / job).iterdir()) == sorted(p.name for p in job_dir.iterdir())


def test_a_job_name_too_long_for_a_directory_is_one_line(server, unique, tmp_path, capsys):
    code, _, err = run(capsys, "export-job", "j" * 300, "--out", str(tmp_path), "--server", server.http_url)
    assert code == 1 and "Traceback" not in err
    assert err.strip() == "harborlight: the job name is 300 bytes long: a directory name holds at most 240 here"
