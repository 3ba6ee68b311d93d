"""SIGKILL at random moments during ingest, five times: every acknowledged span survives each restart."""

from tests.support.load import kill_loop


def test_five_kills_during_ingest_lose_nothing_acknowledged(tmp_path):
    result = kill_loop(tmp_path / "store", kills=5)
    assert result.kills == 5
    assert len(result.acknowledged_jobs) > 5, "nothing was acknowledged between kills: the test proves nothing"
    assert result.missing_after_restart == []
    print(f"kill loop: {result.kills} kills survived, {len(result.acknowledged_jobs)} acknowledged requests intact")
