"""summary.md as AgentCompass 1.0.1 renders it (`render_summary_markdown`), from a report dict.

Tables use the GitHub layout of `tabulate(..., tablefmt="github", disable_numparse=True)`: every
cell left-aligned, a column as wide as its widest cell or its header plus two.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from html import escape
from typing import Any

from harborlight.read.derive.agentcompass import to_json

FAILED_NOTE = (
    "**Evaluation failed:** no official score. Values labelled reference exclude all tasks with final FATAL issues."
)


def github_table(headers: Sequence[str], rows: Sequence[Sequence[str]]) -> list[str]:
    widths = [max([len(h) + 2, *(len(r[i]) for r in rows)]) for i, h in enumerate(headers)]

    def line(cells: Sequence[str]) -> str:
        return "|" + "|".join(f" {c.ljust(w)} " for c, w in zip(cells, widths, strict=True)) + "|"

    return [line(headers), "|" + "|".join("-" * (w + 2) for w in widths) + "|", *(line(r) for r in rows)]


def _text(value: Any) -> str:
    text = str(value).replace("\r", " ").replace("\n", " ")
    return escape(text, quote=False).replace("\\", "\\\\").replace("|", "\\|").replace("`", "\\`")


def _code(value: Any) -> str:
    text = str(value).replace("\r", " ").replace("\n", " ")
    delimiter = "`"
    while delimiter in text:
        delimiter += "`"
    return f"{delimiter}{text}{delimiter}"


def _fmt(value: float | None, series: Mapping[str, Any]) -> str:
    if value is None:
        return "-"
    display = series.get("display") or {}
    precision = display.get("precision")
    text = f"{value:.{4 if precision is None else precision}f}"
    return f"{text} {display['unit']}" if display.get("unit") else text


def _value(part: Mapping[str, Any] | None, series: Mapping[str, Any]) -> str:
    if part is None:
        return "-"
    if part.get("reference_value") is not None:
        return _fmt(part["reference_value"], series) + " (reference)"
    return _fmt(part.get("value"), series)


def _primary(report: Mapping[str, Any]) -> Mapping[str, Any]:
    headline = [s for s in report["series"] if s["role"] == "headline"]
    return next((s for s in headline if s["reducer"] == report["strategy"]), headline[0])


def render_summary(report: Mapping[str, Any], *, model: str, benchmark: str) -> str:
    """The summary.md text; `benchmark` is upper-cased in the title as AgentCompass's store does."""
    doc = to_json(report)
    primary = _primary(doc)
    c = primary["counts"]
    lines = [
        f"# {_text(benchmark.upper())} Evaluation Results",
        "",
        f"**Model:** {_code(model)}",
        "",
        f"**Total:** {c['total']}",
        f"**Evaluated:** {c['evaluated']}/{c['total']}",
        f"**Invalidated:** {c['invalidated']}",
        f"**Error:** {c['error']}",
    ]
    if doc["k"] == 1:
        lines += ["", "## Metrics", ""]
        lines += github_table(
            ["Metric", "Value"], [[_text(s["metric_id"]), _text(_value(s, s))] for s in doc["series"]]
        )
        for name, field in (("category", "categories"), ("hierarchy", "hierarchy")):
            lines += _breakdown(name, field, doc["series"], primary)
    else:
        lines += [
            "",
            f"**Attempt plan:** `k={doc['k']}`, strategy `{doc['strategy']}`, aggregation `{doc['aggregation']}`",
            "",
            "## Metrics",
            "",
        ]
        rows = [
            [
                _text(f"{(s['display'] or {}).get('label', s['metric_id'])} ({s['reducer']}@{s['k']})"),
                s["role"],
                s["reducer"],
                s["aggregation"],
                _text(_value(s, s)),
                str(s["counts"]["evaluated"]),
                str(s["counts"]["error"]),
                str(s["counts"]["unavailable"]),
                str(s["counts"]["total"]),
            ]
            for s in doc["series"]
        ]
        lines += github_table(
            ["Metric", "Role", "Reducer", "Formula", "Value", "Evaluated", "Error", "Unavailable", "Total"], rows
        )
        lines += ["", "Full metric data: [metrics.json](metrics.json)"]
    text = "\n".join(lines) + "\n"
    if doc["evaluation_failed"]:
        text += "\n" + FAILED_NOTE + "\n"
    return text


def _breakdown(name: str, field: str, series: Sequence[Mapping[str, Any]], primary: Mapping[str, Any]) -> list[str]:
    keys = sorted(primary[field])
    if not keys:
        return []
    rows = []
    for key in keys:
        own = primary[field][key]["counts"]
        rows.append(
            [
                _text(key),
                *(_text(_value(s[field].get(key), s)) for s in series),
                str(own["total"]),
                str(own["evaluated"]),
                str(own["error"]),
            ]
        )
    return [
        "",
        f"## Details: {name}",
        "",
        *github_table([name, *(s["metric_id"] for s in series), "total", "evaluated", "error"], rows),
    ]
