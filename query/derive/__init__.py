"""Pure derivations: typed trial rows in, values with provenance out (no database, no HTTP)."""

from query.derive.agentcompass import agentcompass_report, build_report, metrics_json_text
from query.derive.agentcompass_attempts import CONTRACTS, task_attempts, to_details
from query.derive.agentcompass_summary import render_summary
from query.derive.behavior import Behavior, derive_behavior
from query.derive.compare import Comparison, compare
from query.derive.job_metrics import JobMetrics, derive_job
from query.derive.outcomes import INFRA_OUTCOMES, PRECEDENCE, Outcome, TrialOutcome, classify, derive_outcome
from query.derive.pass_at_k import PassAtK, derive_pass_at_k
from query.derive.provenance import Provenance, Valued
from query.derive.records import AgentCall, Interval, JobFacts, ModelCall, ScorePart, ToolCategory, TrialFacts, VerifierReport
from query.derive.timings import TrialTimings, derive_timings

__all__ = [
    "AgentCall", "Behavior", "CONTRACTS", "Comparison", "INFRA_OUTCOMES", "Interval", "JobFacts",
    "JobMetrics", "ModelCall", "Outcome", "PRECEDENCE", "PassAtK", "Provenance", "ScorePart",
    "ToolCategory", "TrialFacts", "TrialOutcome", "TrialTimings", "Valued", "VerifierReport",
    "agentcompass_report", "build_report", "classify", "compare", "derive_behavior", "derive_job",
    "derive_outcome", "derive_pass_at_k", "derive_timings", "metrics_json_text", "render_summary",
    "task_attempts", "to_details",
]
