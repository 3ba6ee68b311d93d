"""Pure derivations: typed trial rows in, values with provenance out (no database, no HTTP).

The names below are re-exported lazily (PEP 562), so importing one small module of this package (a CLI
command's `trial_state`) does not load every derivation and its statistics libraries."""

import importlib
from typing import TYPE_CHECKING, Any

_HOMES = {
    "agentcompass": ("agentcompass_report", "build_report", "metrics_json_text"),
    "agentcompass_attempts": ("CONTRACTS", "task_attempts", "to_details"),
    "agentcompass_summary": ("render_summary",),
    "behavior": ("Behavior", "derive_behavior"),
    "compare": ("Comparison", "compare"),
    "job_metrics": ("JobMetrics", "derive_job"),
    "outcomes": ("INFRA_OUTCOMES", "PRECEDENCE", "Outcome", "TrialOutcome", "classify", "derive_outcome"),
    "pass_at_k": ("PassAtK", "derive_pass_at_k"),
    "provenance": ("Provenance", "Valued"),
    "records": (
        "AgentCall",
        "Interval",
        "JobFacts",
        "ModelCall",
        "ScorePart",
        "ToolCategory",
        "TrialFacts",
        "VerifierReport",
    ),
    "timings": ("TrialTimings", "derive_timings"),
}
_MODULE_OF = {name: module for module, names in _HOMES.items() for name in names}

__all__ = sorted(_MODULE_OF)


def __getattr__(name: str) -> Any:
    module = _MODULE_OF.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value
    return value


if TYPE_CHECKING:
    from harborlight.read.derive.agentcompass import agentcompass_report, build_report, metrics_json_text
    from harborlight.read.derive.agentcompass_attempts import CONTRACTS, task_attempts, to_details
    from harborlight.read.derive.agentcompass_summary import render_summary
    from harborlight.read.derive.behavior import Behavior, derive_behavior
    from harborlight.read.derive.compare import Comparison, compare
    from harborlight.read.derive.job_metrics import JobMetrics, derive_job
    from harborlight.read.derive.outcomes import (
        INFRA_OUTCOMES,
        PRECEDENCE,
        Outcome,
        TrialOutcome,
        classify,
        derive_outcome,
    )
    from harborlight.read.derive.pass_at_k import PassAtK, derive_pass_at_k
    from harborlight.read.derive.provenance import Provenance, Valued
    from harborlight.read.derive.records import (
        AgentCall,
        Interval,
        JobFacts,
        ModelCall,
        ScorePart,
        ToolCategory,
        TrialFacts,
        VerifierReport,
    )
    from harborlight.read.derive.timings import TrialTimings, derive_timings
