"""Pure derivations: typed trial rows in, values with provenance out (no database, no HTTP)."""

from harborlight.read.derive.agentcompass import agentcompass_report, build_report, metrics_json_text
from harborlight.read.derive.agentcompass_attempts import CONTRACTS, task_attempts, to_details
from harborlight.read.derive.agentcompass_summary import render_summary
from harborlight.read.derive.behavior import Behavior, derive_behavior
from harborlight.read.derive.compare import Comparison, compare
from harborlight.read.derive.job_metrics import JobMetrics, derive_job
from harborlight.read.derive.outcomes import INFRA_OUTCOMES, PRECEDENCE, Outcome, TrialOutcome, classify, derive_outcome
from harborlight.read.derive.pass_at_k import PassAtK, derive_pass_at_k
from harborlight.read.derive.provenance import Provenance, Valued
from harborlight.read.derive.records import AgentCall, Interval, JobFacts, ModelCall, ScorePart, ToolCategory, TrialFacts, VerifierReport
from harborlight.read.derive.timings import TrialTimings, derive_timings

__all__ = [
    "AgentCall", "Behavior", "CONTRACTS", "Comparison", "INFRA_OUTCOMES", "Interval", "JobFacts",
    "JobMetrics", "ModelCall", "Outcome", "PRECEDENCE", "PassAtK", "Provenance", "ScorePart",
    "ToolCategory", "TrialFacts", "TrialOutcome", "TrialTimings", "Valued", "VerifierReport",
    "agentcompass_report", "build_report", "classify", "compare", "derive_behavior", "derive_job",
    "derive_outcome", "derive_pass_at_k", "derive_timings", "metrics_json_text", "render_summary",
    "task_attempts", "to_details",
]
