"""docs/field-guide.md documents every field the derivations produce."""

import dataclasses
import re

from harborlight.read.derive.agentcompass import build_report, to_json
from harborlight.read.derive.agentcompass_attempts import CONTRACTS, task_attempts
from harborlight.read.derive.behavior import Behavior, TokenPoint
from harborlight.read.derive.compare import Comparison, TaskRow
from harborlight.read.derive.critical_path import CriticalPath, PathStep
from harborlight.read.derive.intervals import ConfidenceInterval
from harborlight.read.derive.job_metrics import JobMetrics
from harborlight.read.derive.outcomes import Outcome, TrialOutcome
from harborlight.read.derive.paired import PairedComparison, TaskPair
from harborlight.read.derive.pass_at_k import PassAtK
from harborlight.read.derive.producer_totals import CounterTotal, FinalMetrics, Totals
from harborlight.read.derive.time_split import JobTimeSplit, LongCall, TimeSplit
from harborlight.read.derive.timings import TrialTimings
from tests.support.paths import REPO
from tests.unit.read.derive.builders import trial

GUIDE = REPO / "docs" / "field-guide.md"
RECORDS = (
    TrialOutcome,
    TrialTimings,
    Behavior,
    TokenPoint,
    JobMetrics,
    PassAtK,
    Comparison,
    TaskRow,
    ConfidenceInterval,
    PairedComparison,
    TaskPair,
    TimeSplit,
    LongCall,
    JobTimeSplit,
    CriticalPath,
    PathStep,
    Totals,
    FinalMetrics,
    CounterTotal,
)


def documented() -> set[str]:
    return set(re.findall(r"`([A-Za-z_][A-Za-z0-9_.]*)`", GUIDE.read_text()))


def report_keys(value, out):
    if isinstance(value, dict):
        for key, item in value.items():
            out.add(key)
            if key in ("categories", "hierarchy"):  # keyed by category name / node path
                for breakdown in item.values():
                    report_keys(breakdown, out)
            else:
                report_keys(item, out)
    elif isinstance(value, list):
        for item in value:
            report_keys(item, out)
    return out


def test_every_derived_field_is_documented():
    names = {f.name for record in RECORDS for f in dataclasses.fields(record)}
    missing = sorted(names - documented())
    assert not missing, f"fields not in docs/field-guide.md: {missing}"


def test_every_outcome_class_is_documented():
    missing = sorted(o.value for o in Outcome if o.value not in documented())
    assert not missing, missing


def test_every_agentcompass_report_key_is_documented():
    tasks = task_attempts([trial("a", reward=1.0), trial("b", reward=0.0)], "correct")
    keys = report_keys(to_json(build_report(tasks, CONTRACTS["correct"], k=1)), set())
    keys -= {"description", "label", "precision", "unit"}  # AgentCompass's own
    missing = sorted(keys - documented())
    assert not missing, f"metrics.json keys not in docs/field-guide.md: {missing}"


def test_every_key_of_the_intervals_beside_metrics_json_is_documented():
    from harborlight.read.derive.job_report import ReportOptions, intervals_document, report_document

    trials, options = [trial("a", reward=1.0), trial("b", reward=0.0)], ReportOptions()
    doc = intervals_document(report_document(trials, options), trials, options)
    keys = set(doc) | {key for entry in doc["series"].values() for key in entry}
    missing = sorted(keys - documented())
    assert not missing, f"intervals keys not in docs/field-guide.md: {missing}"
