"""SIGKILL during ingest, ten times, at random moments and just after commits began: every acknowledged span
is stored after each restart, exactly once (the write-ahead log replays what the store lacks, under the
batch's deduplication token), and so is every request the kill left unanswered and its exporter sent
again after the restart, also when the log had taken it before the kill (its digest is in the store)."""

from tests.support.load import kill_loop


def test_ten_kills_during_ingest_store_every_acknowledged_span_exactly_once(tmp_path):
    result = kill_loop(tmp_path / "store", kills=10)
    assert result.kills == 10
    assert len(result.acknowledged_jobs) > 10, "nothing was acknowledged between kills: the test proves nothing"
    assert result.kills_mid_commit >= 3, "the kills never landed just after a commit began"
    assert result.sent_again, "no kill left a request unanswered: the retry path was never taken"
    assert result.missing_after_restart == []
    assert result.stored_twice == []
    print(
        f"kill loop: {result.kills} kills ({result.kills_mid_commit} just after a commit began, "
        f"{result.torn_tails} restarts cut a torn record), {len(result.acknowledged_jobs)} acknowledged "
        f"requests stored exactly once, {len(result.sent_again)} of them sent again after a kill "
        f"({len(result.known_when_sent_again)} of those the log had taken before it)"
    )
