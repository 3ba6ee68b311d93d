"""A keeper pass that fails is tried again by the keeper itself (harborlight/summaries/refresh.py): what was
committed is resolved once the store heals, with no further commit to wake it, and a reader that was waiting
gets its answer then, not after its whole timeout."""

from tests.summaries.test_restart import _in_store


def test_a_failed_pass_is_tried_again_until_the_store_heals(tmp_path):
    failed, healed, waited, reader_caught_up = _in_store(
        tmp_path / "data",
        """
        import threading, time
        from harborlight.summaries.refresh import TrialRowsKeeper
        ensure_schema(client)
        keeper = TrialRowsKeeper(open_client(Path(sys.argv[1]))).start()
        keeper.caught_up(60)
        client.command("DETACH TABLE trial_summarized")  # every pass fails on it meanwhile
        answers = []
        reader = threading.Thread(target=lambda: answers.append(keeper.caught_up(60)))
        started = time.monotonic()
        keeper.wake()  # a commit's wake
        reader.start()  # and a reader waiting for it
        time.sleep(1.5)
        failed = keeper.activity()
        client.command("ATTACH TABLE trial_summarized")
        deadline = time.monotonic() + 30  # no wake, no commit from here on
        while keeper.activity() != "idle" and time.monotonic() < deadline:
            time.sleep(0.05)
        healed = keeper.activity()
        reader.join()
        print(json.dumps([failed, healed, time.monotonic() - started, answers[0]]))
        """,
    )
    assert failed.startswith("idle; its last pass failed: ") and "trial_summarized" in failed, failed
    assert healed == "idle"
    assert reader_caught_up is True
    assert waited < 30, f"the reader waited {waited:.1f} s"
