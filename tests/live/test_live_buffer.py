"""A live watcher's queue, without a server: what waits is bounded in bytes, a watcher past its limit is
dropped with one final `dropped` event, and a history replay is told to wait rather than overrun it."""

import asyncio
import json

from harborlight.api.live.events import LiveRow
from harborlight.api.live.route import Watcher


def _tool_row(n: int, job: str = "job-1", tenant: str = "") -> LiveRow:
    return LiveRow(
        event_id=f"e{n}",
        kind="tool",
        name="execute_tool Bash",
        job=job,
        trial="t1",
        task="fix",
        agent="a",
        model=None,
        start_unix_nano=n,
        end_unix_nano=n + 1,
        input_tokens=None,
        output_tokens=None,
        cost_usd=None,
        http_status=None,
        success=True,
        tool="Bash",
        tool_category="shell",
        tenant=tenant,
        twin_id="",
    )


def _events(data: bytes) -> list[tuple[str, dict]]:
    frames = [f for f in data.decode().split("\n\n") if f]
    return [
        (f.split("\n")[0].removeprefix("event: "), json.loads(f.split("\n")[1].removeprefix("data: "))) for f in frames
    ]


def test_a_reader_that_keeps_up_gets_every_event_in_order():
    async def run():
        watcher = Watcher("job-1", "", limit=4096)
        shown = []
        for n in range(100):
            watcher.offer([_tool_row(n)])
            shown += _events(watcher.take())
        return watcher, shown

    watcher, shown = asyncio.run(run())
    assert [kind for kind, _ in shown] == ["trial_started"] + ["tool_call"] * 100
    assert not watcher.ended and watcher.queued == 0


def test_a_watcher_past_its_limit_is_dropped_with_one_final_event_and_holds_nothing_else():
    async def run():
        watcher = Watcher("job-1", "", limit=4096)
        watcher.offer([_tool_row(n) for n in range(1_000)])
        return watcher

    watcher = asyncio.run(run())
    assert watcher.ended and not watcher.seen and len(watcher.frames) == 1
    ((kind, event),) = _events(watcher.take())
    assert kind == "dropped" and event["type"] == "dropped" and event["job"] == "job-1"
    assert event["data"]["limit_bytes"] == 4096 and event["data"]["behind_bytes"] > 4096
    assert "behind its reader" in event["data"]["reason"] and "--live-buffer-kib" in event["data"]["reason"]
    watcher.offer([_tool_row(5_000)])  # a dropped watcher takes nothing more
    assert not watcher.frames and watcher.queued == 0


def test_a_replay_is_told_to_wait_once_half_the_limit_is_queued():
    async def run():
        watcher = Watcher("job-1", "", limit=4096)
        n = 0
        while watcher.room.is_set():
            watcher.offer([_tool_row(n)])
            n += 1
        waiting = watcher.queued
        watcher.take()
        return watcher, waiting

    watcher, waiting = asyncio.run(run())
    assert 2048 < waiting <= 4096 and not watcher.ended
    assert watcher.room.is_set() and watcher.queued == 0
