"""A read that waited for the keeper in vain says what the keeper is doing (harborlight/summaries/refresh.py
`TrialRowsKeeper.activity`, in the server's warning): idle, running a pass for so long at a line of ours, or why its
last pass failed."""

from tests.summaries.test_restart import _in_store


def test_a_keeper_whose_passes_fail_says_why(tmp_path):
    idle, caught_up, failed = _in_store(
        tmp_path / "data",
        """
        from harborlight.summaries.refresh import TrialRowsKeeper
        ensure_schema(client)
        keeper = TrialRowsKeeper(open_client(Path(sys.argv[1]))).start()
        keeper.caught_up(60)
        idle = keeper.activity()
        client.command("DROP TABLE trial_summarized")  # every pass now fails on it
        caught_up = keeper.resolve_now(3)
        print(json.dumps([idle, caught_up, keeper.activity()]))
        """,
    )
    assert idle == "idle"
    assert caught_up is False
    assert failed.startswith("idle; its last pass failed: ") and "trial_summarized" in failed, failed
