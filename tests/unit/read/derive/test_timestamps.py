"""The one reading of an ATIF step timestamp (harborlight/read/derive/timestamps.py), behind `steps[].dur` and the
step clock of an imported trajectory's spans: a trajectory Harbor's own models accept with zone-less
stamps (Harbor validates only that each parses as ISO 8601) gets no step clock, with the reason, where
`steps[].dur` used to read them in the server's local zone."""

import calendar

from harbor.models.trajectories import Trajectory

from harborlight.read.derive.timestamps import stamp_ns
from harborlight.read.derive.trajectory_steps import step_durations
from tests.importers.harbor_job import trajectory


def _zone_less(harbor: Trajectory) -> Trajectory:
    data = harbor.to_json_dict()
    for step in data["steps"]:
        step["timestamp"] = step["timestamp"].removesuffix("Z")
    return Trajectory.model_validate(data)  # Harbor's own validation accepts them


def test_a_zone_less_step_stamp_gives_no_step_clock_with_the_reason():
    harbor = _zone_less(trajectory(20))
    first = harbor.steps[0].timestamp
    assert first.endswith(":20") and "+" not in first  # e.g. 2026-05-01T12:00:20
    steps = step_durations(harbor.to_json_dict()).value
    assert [s.dur.value for s in steps] == [None] * len(steps)
    assert steps[0].dur.note == f"this step's clock: a timestamp without a zone names no instant: {first!r}"
    assert steps[-1].dur.note == "the last step: no next step opened"


def test_a_zone_less_stamp_is_refused_and_a_zoned_one_read_exactly():
    zoned = trajectory(20).steps[1].timestamp
    assert zoned == "2026-05-01T12:00:20.500000Z"
    assert stamp_ns(zoned).value == calendar.timegm((2026, 5, 1, 12, 0, 20)) * 10**9 + 500_000_000
    assert stamp_ns(zoned.removesuffix("Z")).value is None
    assert stamp_ns("yesterday").note == "not an ISO 8601 timestamp: 'yesterday'"
    assert stamp_ns(None).note == "no timestamp"
