"""A trial's state: one rule for every reader (the trial row and `harborlight trial`, the jobs' running
counts, the live board of `harborlight watch`).

Spans reach the store when they end, so a trial is known by what of it has ended:
- `finished`: its root `harbor.trial` span ended (its end is recorded);
- `running`: a Harbor phase ended (environment setup, agent setup, agent execution, verifier), the root not yet;
- `unknown`: neither (an agent's telemetry without a harness's trial span: no start or end is recorded).
"""

from enum import StrEnum


class TrialState(StrEnum):
    RUNNING = "running"
    FINISHED = "finished"
    UNKNOWN = "unknown"


NOTES = {
    TrialState.RUNNING: "a Harbor phase ended, the trial span has not",
    TrialState.FINISHED: "the trial span ended",
    TrialState.UNKNOWN: "no harbor.trial span and no Harbor phase: no start or end recorded",
}


def trial_state(root_ended: bool, phase_ended: bool) -> TrialState:
    """The state from what has ended: the root `harbor.trial` span, any Harbor phase span."""
    if root_ended:
        return TrialState.FINISHED
    return TrialState.RUNNING if phase_ended else TrialState.UNKNOWN


def row_state(is_running: bool, finished_at: float | str | None) -> TrialState:
    """The state of a trial row (its `is_running` and `finished_at`, both decided by `trial_state`)."""
    return trial_state(root_ended=not is_running and finished_at is not None, phase_ended=is_running)
