"""A job's report as one self-contained HTML page to share: the job row with its intervals, the outcome
mix, tokens and cost per trial, where the agent time went, the span-duration charts and, against another
job, the paired comparison. Built from the API's own JSON documents (the same ones `harborlight report`
prints as tables), charts drawn by Plotly with its library inlined, so the file reads offline.

Pure: documents in, HTML out. Every name that came from telemetry is escaped; a missing value reads "-".
"""

from collections.abc import Sequence
from html import escape
from typing import Any

import plotly.graph_objects as go
from plotly.offline import get_plotlyjs

MISSING = "-"
_CHART = {"displaylogo": False, "responsive": True}


def _v(field: Any) -> Any:
    """A valued field's value ({"value", "provenance", "note"}); a plain field as it is."""
    return field.get("value") if isinstance(field, dict) and "provenance" in field else field


def _note(field: Any) -> str:
    return (field.get("note") or "") if isinstance(field, dict) and "provenance" in field else ""


def _pct(v: float | None) -> str:
    return MISSING if v is None else f"{v:.1%}"


def _num(v: Any, fmt: str = "{:,}") -> str:
    return MISSING if v is None else fmt.format(v)


def _interval(field: Any, fmt: str = "{:.1%}") -> str:
    ci = _v(field)
    return f"[{fmt.format(ci['low'])}, {fmt.format(ci['high'])}]" if ci else f"no interval: {_note(field) or 'n/a'}"


def _table(header: Sequence[str], rows: Sequence[Sequence[str]], cls: str = "") -> str:
    head = "".join(f"<th>{escape(h)}</th>" for h in header)
    body = "".join("<tr>" + "".join(f"<td>{escape(str(c))}</td>" for c in row) + "</tr>" for row in rows)
    return f'<table class="{cls}"><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>'


def _chart(figure: go.Figure, name: str) -> str:
    figure.update_layout(margin={"l": 60, "r": 20, "t": 40, "b": 60}, height=360, template="plotly_white")
    return f'<div class="chart" data-chart="{escape(name)}">' + figure.to_html(
        full_html=False, include_plotlyjs=False, config=_CHART, div_id=f"chart-{name}") + "</div>"


def _job_section(job: dict[str, Any]) -> str:
    rows = [
        ("trials", f"{_num(_v(job['n_trials']))} ({_num(_v(job['n_running']))} running)", ""),
        ("raw solve rate", _pct(_v(job["raw_solve_rate"])), _interval(job["raw_solve_rate_ci"])),
        ("adjusted solve rate", _pct(_v(job["adjusted_solve_rate"])), _interval(job["adjusted_solve_rate_ci"])),
        ("infrastructure failures", _num(_v(job["n_infra"])), "left out of the adjusted rate"),
        ("mean score", _num(_v(job["mean_score"]), "{:.4f}"), _interval(job["mean_score_ci"], "{:.4f}")),
        ("agent", f"{_v(job['agent_label']) or MISSING} {_v(job['agent_version']) or ''}".strip(), ""),
        ("dataset", _v(job["dataset"]) or MISSING, _note(job["dataset"])),
        ("tokens in / cached / out", " / ".join(_num(_v(job[f])) for f in
                                               ("total_input_tokens", "total_cache_tokens", "total_output_tokens")), ""),
        ("cost (USD, as recorded)", _num(_v(job["total_cost_usd"]), "{:.4f}"), _note(job["total_cost_usd"])),
        ("duration (min)", "running" if _v(job["is_running"]) else _num(_v(job["duration_min"]), "{:.1f}"),
         _note(job["duration_min"])),
    ]
    passk = job.get("pass_at_k") or {}
    for label, key in (("pass@k", "pass_at_k"), ("pass^k", "pass_hat_k")):
        points, intervals = _v(passk.get(key)) or {}, _v(passk.get(f"{key}_ci")) or {}
        for k, p in points.items():
            ci = intervals.get(k)
            rows.append((f"{label} k={k}", f"{p:.3f}", f"[{ci['low']:.3f}, {ci['high']:.3f}]" if ci else
                         f"no interval: {_note(passk.get(f'{key}_ci')) or 'n/a'}"))
    return "<h2>Job</h2>" + _table(("measure", "value", "95% interval / note"), rows, "job")


def _outcome_section(job: dict[str, Any]) -> str:
    counts = {k: n for k, n in (_v(job["counts"]) or {}).items() if n}
    if not counts:
        return "<h2>Outcomes</h2><p>No finished trial yet.</p>"
    figure = go.Figure(go.Bar(x=list(counts.values()), y=list(counts), orientation="h"))
    figure.update_layout(title="finished trials by outcome", xaxis_title="trials")
    return "<h2>Outcomes</h2>" + _chart(figure, "outcomes")


def _trials_section(trials: Sequence[dict[str, Any]]) -> str:
    names = [t["trial"] for t in trials]
    figure = go.Figure()
    for field, label in (("n_input_tokens", "input"), ("n_cache_tokens", "of which cached"),
                         ("n_output_tokens", "output")):
        figure.add_bar(x=names, y=[_v(t[field]) for t in trials], name=f"{label} tokens")
    figure.update_layout(title="tokens per trial", barmode="group", yaxis_title="tokens")
    costed = [t for t in trials if _v(t["cost_usd"]) is not None]
    cost = go.Figure(go.Bar(x=[t["trial"] for t in costed], y=[_v(t["cost_usd"]) for t in costed]))
    cost.update_layout(title=f"cost per trial (USD, recorded by {len(costed)} of {len(trials)} trials)",
                       yaxis_title="USD")
    rows = [(t["trial"], t["task"] or MISSING, "running" if t["is_running"] else (_v(t["outcome"]) or MISSING),
             _num(_v(t["reward"]), "{:g}"), _num(_v(t["dur_total"]), "{:.1f}"), _num(_v(t["dur_agent"]), "{:.1f}"),
             _num(_v(t["n_input_tokens"])), _num(_v(t["n_output_tokens"])), _num(_v(t["cost_usd"]), "{:.4f}"),
             _v(t["exception_type"]) or "") for t in trials]
    return ("<h2>Trials</h2>" + _chart(figure, "tokens") + _chart(cost, "cost")
            + _table(("trial", "task", "outcome", "reward", "total s", "agent s", "tokens in", "tokens out",
                      "cost $", "exception"), rows, "trials"))


def _time_section(time: dict[str, Any]) -> str:
    window = _v(time["agent_window_s"])
    parts = {label: _v(time[field]) for label, field in (("model calls", "model_time_s"),
                                                         ("tools (no model call)", "tool_time_s"),
                                                         ("gaps (neither)", "gap_time_s"))}
    if window is None or any(v is None for v in parts.values()):
        why = "; ".join(n for n in (_note(time[f]) for f in ("agent_window_s", "model_time_s", "gap_time_s")) if n)
        return f"<h2>Where the agent time went</h2><p>Not measured: {escape(why or 'no clocked calls')}.</p>"
    figure = go.Figure([go.Bar(x=[v], y=["agent phase"], name=label, orientation="h") for label, v in parts.items()])
    figure.update_layout(title=f"agent phases of {_v(time['n_trials'])} finished trials, summed "
                               f"({window:,.1f} s)", barmode="stack", xaxis_title="seconds", height=240)
    by_model = _v(time["model_time_by_model"]) or {}
    rows = [(label, f"{v:,.1f}", _pct(v / window) if window else MISSING) for label, v in parts.items()]
    rows += [(f"model {m}", f"{v:,.1f}", _pct(v / window) if window else MISSING) for m, v in by_model.items()]
    return ("<h2>Where the agent time went</h2>" + _chart(figure, "time")
            + _table(("part", "seconds", "share of the agent phase"), rows, "time"))


def _durations_section(chart: dict[str, Any]) -> str:
    by_kind = _v(chart["by_kind"])
    if not by_kind:
        return f"<h2>Span durations</h2><p>{escape(_note(chart['by_kind']))}.</p>"
    edges = _v(chart["edges_s"])
    labels = [f"< {edges[0]:g} s", *(f"{lo:.3g}-{hi:.3g} s" for lo, hi in zip(edges, edges[1:])), f">= {edges[-1]:g} s"]
    used = [i for i in range(len(labels)) if any(r["count"][i] for r in by_kind.values())]
    span = range(min(used), max(used) + 1)
    sections = []
    for measure, title in (("count", "spans per duration bin"), ("time_s", "summed span time per duration bin (s)")):
        figure = go.Figure([go.Bar(x=[labels[i] for i in span], y=[r[measure][i] for i in span], name=kind)
                            for kind, r in by_kind.items()])
        figure.update_layout(title=f"{title}, by kind (log-spaced bins)", barmode="stack",
                             xaxis_title="span duration")
        sections.append(_chart(figure, f"durations-{measure}"))
    unclocked = _v(chart["n_without_clock"])
    return ("<h2>Span durations</h2>" + "".join(sections)
            + f"<p>{_num(_v(chart['n_spans']))} spans charted; {_num(unclocked)} without a known end are not. "
              "Shares are of summed span time, never of the run: spans nest.</p>")


def _comparison_section(comparison: dict[str, Any]) -> str:
    base, *others = comparison["jobs"]
    rows = []
    for other in others:
        p = comparison["paired"][other]
        ci = _v(p["difference_ci"])
        rows.append((f"{other} vs {base}", p["measure"], _num(_v(p["n_tasks"])), _num(_v(p["mean_difference"]), "{:+.3f}"),
                     f"[{ci['low']:+.3f}, {ci['high']:+.3f}]" if ci else f"no interval: {_note(p['difference_ci'])}",
                     f"{p['test']} p={_num(_v(p['p_value']), '{:.3g}')}", _num(_v(p["n_better"])),
                     _num(_v(p["n_worse"])), p.get("verdict") or MISSING))
    flips = [(r["task"], *(r["outcomes"].get(j) or MISSING for j in comparison["jobs"]), r["flip"] or "")
             for r in comparison["rows"] if r.get("flip")]
    return (f"<h2>Against {escape(', '.join(others))} on {_num(_v(comparison['matched_tasks']))} matched tasks</h2>"
            + _table(("pair", "measure", "tasks", "mean difference", "95% interval", "paired test", "better",
                      "worse", "verdict"), rows, "paired")
            + (_table(("task", *comparison["jobs"], "flip"), flips, "flips") if flips else "<p>No task flipped.</p>"))


_STYLE = """
body { font-family: system-ui, sans-serif; margin: 2rem auto; max-width: 72rem; color: #222; }
table { border-collapse: collapse; margin: 1rem 0; font-size: 0.9rem; }
th, td { border-bottom: 1px solid #ddd; padding: 0.25rem 0.6rem; text-align: left; }
td:nth-child(n+2) { font-variant-numeric: tabular-nums; }
.chart { margin: 1rem 0; }
"""


def report_page(job: dict[str, Any], trials: Sequence[dict[str, Any]], time: dict[str, Any],
                durations: dict[str, Any], comparison: dict[str, Any] | None = None) -> str:
    """The page: GET /api/jobs/{job}, its trials, /time, /durations and, optionally, /api/compare."""
    sections = [_job_section(job), _outcome_section(job), _trials_section(trials), _time_section(time),
                _durations_section(durations)]
    if comparison is not None:
        sections.append(_comparison_section(comparison))
    title = f"harborlight report: {job['job']}"
    return (f'<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>{escape(title)}</title>'
            f'<style>{_STYLE}</style><script>{get_plotlyjs()}</script></head><body>'
            f'<h1>{escape(title)}</h1>' + "".join(sections)
            + "<p><small>Missing values read - : the run did not record them. Intervals are 95%, over tasks."
              "</small></p></body></html>")
