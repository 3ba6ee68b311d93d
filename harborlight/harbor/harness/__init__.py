"""Helpers for harness authors: emit a trial's lifecycle spans (ARCHITECTURE.md, Identity) with the
OpenTelemetry SDK, exactly as harborlight's Harbor importer does."""

from harborlight.harbor.harness.identity import TrialIdentity
from harborlight.harbor.harness.lifecycle import PHASES, TrialSpans, trial_spans

__all__ = ["PHASES", "TrialIdentity", "TrialSpans", "trial_spans"]
