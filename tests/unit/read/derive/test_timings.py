"""Phase timings: measured from the harness spans, the remainder derived, gaps left null."""

from harborlight.read.derive.provenance import Provenance
from harborlight.read.derive.records import Interval
from harborlight.read.derive.timings import derive_timings
from tests.unit.read.derive.builders import T0, phases, trial


def test_phases_and_remainder():
    t = trial(started_at=T0, finished_at=T0 + 100.0, **phases(T0 + 5, 10, 5, 60, 15))
    d = derive_timings(t)
    assert (d.dur_total.value, d.dur_env.value, d.dur_agent_setup.value, d.dur_agent.value, d.dur_verifier.value) == (
        100.0,
        10.0,
        5.0,
        60.0,
        15.0,
    )
    assert d.dur_other.value == 10.0 and d.dur_other.provenance is Provenance.DERIVED
    assert d.dur_total.provenance is Provenance.MEASURED


def test_setup_failure_has_no_agent_phases_and_says_so():
    t = trial(started_at=T0, finished_at=T0 + 30.0, environment_setup=Interval(T0, T0 + 25.0))
    d = derive_timings(t)
    assert d.dur_agent.value is None and d.dur_agent.note == "no harbor.agent_execution span"
    assert d.dur_other.value == 5.0 and "agent_execution" in d.dur_other.note


def test_running_trial_has_no_total_and_an_open_phase_has_no_duration():
    t = trial(running=True, agent_execution=Interval(T0, None))
    d = derive_timings(t)
    assert d.dur_total.value is None and d.dur_total.note == "trial still running"
    assert d.dur_agent.value is None and d.dur_other.value is None


def test_no_phase_spans_leaves_the_remainder_unknown():
    d = derive_timings(trial())
    assert d.dur_total.value == 60.0 and d.dur_other.value is None
