"""parts_by and score_by_group on GET /api/jobs/{job} and `harborlight report` for a Harbor job directory
whose verifier scored parts: result.json's verifier_result.rewards with several keys, Harbor's own
TrialResult model (tests/importers/harbor_job.py), imported with `harborlight import harbor`."""

import httpx
from harbor.models.trial.result import TrialResult

from tests.importers.cli import run
from tests.importers.harbor_job import write_job


def _score_parts(job_dir) -> None:
    """Give every finished trial a reward with parts, as a verifier writing reward.json does."""
    for n, path in enumerate(sorted(job_dir.glob("*/result.json"))):
        result = TrialResult.model_validate_json(path.read_text())
        result.verifier_result.rewards = {**result.verifier_result.rewards, "tests": 0.5 * n, "lint": 1.0}
        path.write_text(result.model_dump_json(indent=4))


def test_a_multi_part_reward_is_broken_down_by_key(server, unique, tmp_path, capsys):
    job = f"parts-{unique}"
    source = write_job(tmp_path / "src", job)
    _score_parts(source)
    code, _, err = run(capsys, "import", "harbor", str(source), "--server", server.http_url)
    assert code == 0, err
    row = httpx.get(f"{server.http_url}/api/jobs/{job}", timeout=120).json()
    # three finished trials (tests/importers/harbor_job.py): rewards 1, 0, 1; tests 0, 0.5, 1; lint 1 each
    assert row["parts_by"] == {"value": "reward key", "provenance": "measured", "note": None}
    assert row["score_by_group"]["value"] == {"lint": 1.0, "reward": 2 / 3, "tests": 0.5}
    assert row["score_by_group"]["note"] == "3 of 3 finished trials recorded a reward with several keys"
    code, out, err = run(capsys, "report", job, "--server", server.http_url)
    assert code == 0, err
    assert "mean score by reward key" in out and "lint: 1, reward: 0.6667, tests: 0.5" in out
