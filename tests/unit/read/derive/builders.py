"""Small builders for trial rows, so each test states only the facts it is about."""

from harborlight.read.derive.records import Interval, TrialFacts

T0 = 1_760_000_000.0


def trial(
    task: str = "t1",
    *,
    attempt: int | None = 1,
    reward: float | None = None,
    exception: str | None = None,
    job: str = "job-a",
    source: str | None = "ds@1",
    running: bool = False,
    **facts,
) -> TrialFacts:
    """A finished trial (unless running) of `task`; reward None means no verifier result."""
    start = T0 + 100.0 * (attempt or 0)
    return TrialFacts(
        job=job,
        trial=f"{job}.{task}.{attempt}",
        task=task,
        source=source,
        attempt=attempt,
        started_at=facts.pop("started_at", start),
        finished_at=None if running else facts.pop("finished_at", start + 60.0),
        rewards=facts.pop("rewards", None if reward is None else {"reward": reward}),
        exception_type=exception,
        is_running=running,
        **facts,
    )


def phases(start: float, env: float, setup: float, agent: float, verifier: float) -> dict[str, Interval]:
    """Four back-to-back phase intervals starting at `start`, with the given durations."""
    out, t = {}, start
    for name, d in (
        ("environment_setup", env),
        ("agent_setup", setup),
        ("agent_execution", agent),
        ("verifier", verifier),
    ):
        out[name] = Interval(t, t + d)
        t += d
    return out
