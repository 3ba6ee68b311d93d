"""A job's AgentCompass-compatible report (metrics.json, summary.md, and beside them the interval of
each series) from its trials, with the options a caller may set validated in one place. Pure: shared by
the API and `harborlight report`."""

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from harborlight.read.derive.agentcompass import agentcompass_report, metrics_json_text
from harborlight.read.derive.agentcompass_intervals import series_intervals
from harborlight.read.derive.agentcompass_summary import render_summary
from harborlight.read.derive.job_metrics import dataset_of
from harborlight.read.derive.records import TrialFacts

FORMATS = ("json", "md", "intervals")
STRATEGIES = ("avg", "pass")
PRIMARIES = ("correct", "score")
AGGREGATIONS = ("micro_weighted", "category_mean")


@dataclass(frozen=True, slots=True)
class ReportOptions:
    k: int | None = None  # attempts per task; None: the highest attempt index seen
    strategy: str = "avg"
    primary: str | None = None  # None: "score" when any trial is graded, else "correct"
    aggregation: str = "micro_weighted"

    def __post_init__(self) -> None:
        if self.k is not None and not 1 <= self.k <= 1000:
            raise ValueError("k must be a whole number from 1 to 1000")
        if self.strategy not in STRATEGIES:
            raise ValueError(f"strategy must be one of {', '.join(STRATEGIES)}")
        if self.primary is not None and self.primary not in PRIMARIES:
            raise ValueError(f"primary must be one of {', '.join(PRIMARIES)}")
        if self.aggregation not in AGGREGATIONS:
            raise ValueError(f"aggregation must be one of {', '.join(AGGREGATIONS)}")


def report_document(trials: Sequence[TrialFacts], options: ReportOptions) -> dict[str, Any]:
    """The metrics.json document (raises ValueError for a combination AgentCompass rejects)."""
    return agentcompass_report(
        trials, k=options.k, strategy=options.strategy, primary=options.primary, aggregation_mode=options.aggregation
    )


def intervals_document(report: dict[str, Any], trials: Sequence[TrialFacts], options: ReportOptions) -> dict[str, Any]:
    """Each series of `report` with its value (the reference value when the evaluation failed) and interval."""
    intervals = series_intervals(
        trials, k=options.k, strategy=options.strategy, primary=options.primary, aggregation_mode=options.aggregation
    )
    return {
        "k": report["k"],
        "strategy": report["strategy"],
        "aggregation": report["aggregation"],
        "evaluation_failed": report["evaluation_failed"],
        "series": {
            s["series_id"]: {
                "value": s["value"],
                "reference_value": s["reference_value"],
                "interval": intervals[s["series_id"]].to_json(),
            }
            for s in report["series"]
        },
    }


def report_text(job: str, trials: Sequence[TrialFacts], options: ReportOptions, fmt: str) -> str:
    """metrics.json (fmt "json") or summary.md (fmt "md"), byte for byte as AgentCompass writes them;
    "intervals": each series' interval, as JSON."""
    if fmt not in FORMATS:
        raise ValueError(f"format must be one of {', '.join(FORMATS)}")
    report = report_document(trials, options)
    if fmt == "json":
        return metrics_json_text(report)
    if fmt == "intervals":
        return json.dumps(intervals_document(report, trials, options), indent=2) + "\n"
    models = sorted({t.model for t in trials if t.model}) or sorted({t.agent_name for t in trials if t.agent_name})
    benchmark = dataset_of(trials).value or job
    return render_summary(report, model=", ".join(models) or "unknown", benchmark=benchmark)
