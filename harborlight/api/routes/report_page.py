"""A job's report as one self-contained HTML page to share: the job row with its intervals, the outcome
mix, tokens and cost per trial, where the agent time went, the span-duration charts and, against another
job, the paired comparison. Built from the API's own JSON documents (the same ones `harborlight report`
prints as tables). The charts are bar charts drawn by plotly.js's basic bundle (bar, pie, scatter; 1.2 MB,
vendored in assets/), inlined once, gzip-compressed and unpacked by the browser's DecompressionStream, so the
file reads offline: 0.4 MB of library a page (the full bundle, as Plotly's Python package inlines it, took
4.9 MB, and 2.0 MB compressed).

Pure: documents in, HTML out. Every name that came from telemetry is escaped; a missing value reads "-".
Plotly draws its texts (tick labels, legend entries, hover labels, titles) from a small HTML of its own
(`<a href>`, `<b>`, `<br>`, entities): a name reaches a chart only through `_label`, so a trial named
`<a href=...>` is drawn as those characters, never as a link or markup.
"""

import base64
import functools
import gzip
import json
from collections.abc import Sequence
from html import escape
from importlib import resources
from itertools import pairwise
from typing import Any

from harborlight.api.routes.display import MISSING, interval, note, num, pct, value

# npm's plotly.js-basic-dist-min 4.1.1, as published (sha256 99784e3a...0649ba); assets/plotly-LICENSE
_LIBRARY = "plotly-basic-4.1.1.min.js"
_CHART = {"displaylogo": False, "responsive": True}
_CHART_SCRIPT = "text/x-harborlight-chart"  # a chart's Plotly.newPlot, run once the library is unpacked
# Unpacks the library, runs it, then each chart's script, in page order.
_LOADER = """(async () => {
  const packed = Uint8Array.from(atob(document.getElementById("plotly-gzip").textContent), c => c.charCodeAt(0));
  const unpacked = new Blob([packed]).stream().pipeThrough(new DecompressionStream("gzip"));
  const library = document.createElement("script");
  library.textContent = await new Response(unpacked).text();
  document.head.appendChild(library);
  for (const chart of document.querySelectorAll('script[type="CHART_SCRIPT"]')) {
    const run = document.createElement("script");
    run.textContent = chart.textContent;
    chart.replaceWith(run);
  }
})();""".replace("CHART_SCRIPT", _CHART_SCRIPT)
_AXIS = {
    "automargin": True,
    "gridcolor": "#EBF0F8",
    "linecolor": "#EBF0F8",
    "ticks": "",
    "title": {"standoff": 15},
    "zerolinecolor": "#EBF0F8",
    "zerolinewidth": 2,
}
# The bar charts' part of Plotly's "plotly_white" template: white ground, light grid, its colours.
_WHITE = {
    "data": {"bar": [{"marker": {"line": {"color": "white", "width": 0.5}}, "type": "bar"}]},
    "layout": {
        "colorway": ["#636efa", "#EF553B", "#00cc96", "#ab63fa", "#FFA15A", "#19d3f3", "#FF6692", "#B6E880"],
        "font": {"color": "#2a3f5f"},
        "hoverlabel": {"align": "left"},
        "hovermode": "closest",
        "paper_bgcolor": "white",
        "plot_bgcolor": "white",
        "title": {"x": 0.05},
        "xaxis": _AXIS,
        "yaxis": _AXIS,
    },
}


@functools.cache
def _plotly_gzip_base64() -> str:
    """plotly.js's basic bundle (1.2 MB), gzip-compressed and base64-encoded (0.5 MB); the same bytes every
    time."""
    library = resources.files("harborlight.api.routes").joinpath("assets", _LIBRARY).read_bytes()
    return base64.b64encode(gzip.compress(library, 9, mtime=0)).decode()


def _script_json(document: Any) -> str:
    """JSON that cannot end the script element it sits in nor open markup: `<`, `>` and `&` as escapes."""
    text = json.dumps(document, separators=(",", ":"), ensure_ascii=False)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def _interval(field: Any, fmt: str = "{:.1%}") -> str:
    return interval(field, fmt) or f"no interval: {note(field) or 'n/a'}"


def _table(header: Sequence[str], rows: Sequence[Sequence[str]], cls: str = "") -> str:
    head = "".join(f"<th>{escape(h)}</th>" for h in header)
    body = "".join("<tr>" + "".join(f"<td>{escape(str(c))}</td>" for c in row) + "</tr>" for row in rows)
    return f'<table class="{cls}"><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>'


def _label(name: Any) -> str:
    """A name as Plotly must be given it to draw it as text: its HTML-like markup escaped (`&`, `<`, `>`;
    Plotly turns the entities back into the characters)."""
    return escape(str(name), quote=False)


def _labels(names: Sequence[Any]) -> list[str]:
    return [_label(n) for n in names]


def _bar(x: Sequence[Any], y: Sequence[Any], name: str | None = None, horizontal: bool = False) -> dict[str, Any]:
    """A bar trace; its names already through `_label`."""
    bar: dict[str, Any] = {"type": "bar", "x": list(x), "y": list(y)}
    if name is not None:
        bar["name"] = name
    if horizontal:
        bar["orientation"] = "h"
    return bar


def _axis(title: str | None = None, category: bool = False) -> dict[str, Any]:
    """An axis: a category axis stays a category axis, so a trial named like a date or a number is not put
    on a time or number line."""
    return {**({"title": {"text": title}} if title else {}), **({"type": "category"} if category else {})}


def _chart(name: str, bars: list[dict[str, Any]], title: str, height: int = 360, **layout: Any) -> str:
    """The chart's HTML: its place on the page and its Plotly.newPlot, run once the library is unpacked."""
    layout = {
        "template": _WHITE,
        "margin": {"l": 60, "r": 20, "t": 40, "b": 60},
        "height": height,
        "title": {"text": _label(title)},
        **layout,
    }
    div = f"chart-{name}"
    call = f'Plotly.newPlot("{div}", {_script_json(bars)}, {_script_json(layout)}, {_script_json(_CHART)});'
    return (
        f'<div class="chart" data-chart="{escape(name)}"><div id="{div}" class="plotly-graph-div" '
        f'style="height:{height}px; width:100%;"></div><script type="{_CHART_SCRIPT}">{call}</script></div>'
    )


def _job_section(job: dict[str, Any]) -> str:
    rows = [
        ("trials", f"{num(value(job['n_trials']))} ({num(value(job['n_running']))} running)", ""),
        ("raw solve rate", pct(value(job["raw_solve_rate"])), _interval(job["raw_solve_rate_ci"])),
        ("adjusted solve rate", pct(value(job["adjusted_solve_rate"])), _interval(job["adjusted_solve_rate_ci"])),
        ("infrastructure failures", num(value(job["n_infra"])), "left out of the adjusted rate"),
        ("mean score", num(value(job["mean_score"]), "{:.4f}"), _interval(job["mean_score_ci"], "{:.4f}")),
        ("agent", f"{value(job['agent_label']) or MISSING} {value(job['agent_version']) or ''}".strip(), ""),
        ("dataset", value(job["dataset"]) or MISSING, note(job["dataset"])),
        (
            "tokens in / cached / out",
            " / ".join(num(value(job[f])) for f in ("total_input_tokens", "total_cache_tokens", "total_output_tokens")),
            "",
        ),
        ("cost (USD, as recorded)", num(value(job["total_cost_usd"]), "{:.4f}"), note(job["total_cost_usd"])),
        (
            "duration (min)",
            "running" if value(job["is_running"]) else num(value(job["duration_min"]), "{:.1f}"),
            note(job["duration_min"]),
        ),
    ]
    passk = job.get("pass_at_k") or {}
    for label, key in (("pass@k", "pass_at_k"), ("pass^k", "pass_hat_k")):
        points, intervals = value(passk.get(key)) or {}, value(passk.get(f"{key}_ci")) or {}
        for k, p in points.items():
            rows.append(
                (
                    f"{label} k={k}",
                    f"{p:.3f}",
                    interval(intervals.get(k), "{:.3f}") or f"no interval: {note(passk.get(f'{key}_ci')) or 'n/a'}",
                )
            )
    return "<h2>Job</h2>" + _table(("measure", "value", "95% interval / note"), rows, "job")


def _outcome_section(job: dict[str, Any]) -> str:
    counts = {k: n for k, n in (value(job["counts"]) or {}).items() if n}
    if not counts:
        return "<h2>Outcomes</h2><p>No finished trial yet.</p>"
    bars = [_bar(list(counts.values()), _labels(list(counts)), horizontal=True)]
    chart = _chart("outcomes", bars, "finished trials by outcome", xaxis=_axis("trials"), yaxis=_axis(category=True))
    return "<h2>Outcomes</h2>" + chart


def _trials_section(trials: Sequence[dict[str, Any]]) -> str:
    names = _labels([t["trial"] for t in trials])
    tokens = [
        _bar(names, [value(t[field]) for t in trials], f"{label} tokens")
        for field, label in (
            ("n_input_tokens", "input"),
            ("n_cache_tokens", "of which cached"),
            ("n_output_tokens", "output"),
        )
    ]
    costed = [t for t in trials if value(t["cost_usd"]) is not None]
    cost = [_bar(_labels([t["trial"] for t in costed]), [value(t["cost_usd"]) for t in costed])]
    cost_title = f"cost per trial (USD, recorded by {len(costed)} of {len(trials)} trials)"
    rows = [
        (
            t["trial"],
            t["task"] or MISSING,
            "running" if t["is_running"] else (value(t["outcome"]) or MISSING),
            num(value(t["reward"]), "{:g}"),
            num(value(t["dur_total"]), "{:.1f}"),
            num(value(t["dur_agent"]), "{:.1f}"),
            num(value(t["n_input_tokens"])),
            num(value(t["n_output_tokens"])),
            num(value(t["cost_usd"]), "{:.4f}"),
            value(t["exception_type"]) or "",
        )
        for t in trials
    ]
    return (
        "<h2>Trials</h2>"
        + _chart(
            "tokens", tokens, "tokens per trial", barmode="group", xaxis=_axis(category=True), yaxis=_axis("tokens")
        )
        + _chart("cost", cost, cost_title, xaxis=_axis(category=True), yaxis=_axis("USD"))
        + _table(
            (
                "trial",
                "task",
                "outcome",
                "reward",
                "total s",
                "agent s",
                "tokens in",
                "tokens out",
                "cost $",
                "exception",
            ),
            rows,
            "trials",
        )
    )


def _time_section(time: dict[str, Any]) -> str:
    window = value(time["agent_window_s"])
    parts = {
        label: value(time[field])
        for label, field in (
            ("model calls", "model_time_s"),
            ("tools (no model call)", "tool_time_s"),
            ("gaps (neither)", "gap_time_s"),
        )
    }
    if window is None or any(v is None for v in parts.values()):
        why = "; ".join(n for n in (note(time[f]) for f in ("agent_window_s", "model_time_s", "gap_time_s")) if n)
        return f"<h2>Where the agent time went</h2><p>Not measured: {escape(why or 'no clocked calls')}.</p>"
    bars = [_bar([v], ["agent phase"], _label(label), horizontal=True) for label, v in parts.items()]
    title = f"agent phases of {value(time['n_trials'])} finished trials, summed ({window:,.1f} s)"
    by_model = value(time["model_time_by_model"]) or {}
    rows = [(label, f"{v:,.1f}", pct(v / window) if window else MISSING) for label, v in parts.items()]
    rows += [(f"model {m}", f"{v:,.1f}", pct(v / window) if window else MISSING) for m, v in by_model.items()]
    return (
        "<h2>Where the agent time went</h2>"
        + _chart("time", bars, title, height=240, barmode="stack", xaxis=_axis("seconds"))
        + _table(("part", "seconds", "share of the agent phase"), rows, "time")
    )


def _durations_section(chart: dict[str, Any]) -> str:
    by_kind = value(chart["by_kind"])
    if not by_kind:
        return f"<h2>Span durations</h2><p>{escape(note(chart['by_kind']))}.</p>"
    edges = value(chart["edges_s"])
    labels = [f"< {edges[0]:g} s", *(f"{lo:.3g}-{hi:.3g} s" for lo, hi in pairwise(edges)), f">= {edges[-1]:g} s"]
    used = [i for i in range(len(labels)) if any(r["count"][i] for r in by_kind.values())]
    span = range(min(used), max(used) + 1)
    sections = []
    for measure, title in (("count", "spans per duration bin"), ("time_s", "summed span time per duration bin (s)")):
        bars = [
            _bar(_labels([labels[i] for i in span]), [r[measure][i] for i in span], _label(kind))
            for kind, r in by_kind.items()
        ]
        sections.append(
            _chart(
                f"durations-{measure}",
                bars,
                f"{title}, by kind (log-spaced bins)",
                barmode="stack",
                xaxis=_axis("span duration"),
            )
        )
    unclocked = value(chart["n_without_clock"])
    return (
        "<h2>Span durations</h2>"
        + "".join(sections)
        + f"<p>{num(value(chart['n_spans']))} spans charted; {num(unclocked)} without a known end are not. "
        "Shares are of summed span time, never of the run: spans nest.</p>"
    )


def _comparison_section(comparison: dict[str, Any]) -> str:
    base, *others = comparison["jobs"]
    rows = []
    for other in others:
        p = comparison["paired"][other]
        rows.append(
            (
                f"{other} vs {base}",
                p["measure"],
                num(value(p["n_tasks"])),
                num(value(p["mean_difference"]), "{:+.3f}"),
                _interval(p["difference_ci"], "{:+.3f}"),
                f"{p['test']} p={num(value(p['p_value']), '{:.3g}')}",
                num(value(p["n_better"])),
                num(value(p["n_worse"])),
                p.get("verdict") or MISSING,
            )
        )
    flips = [
        (r["task"], *(r["outcomes"].get(j) or MISSING for j in comparison["jobs"]), r["flip"] or "")
        for r in comparison["rows"]
        if r.get("flip")
    ]
    return (
        f"<h2>Against {escape(', '.join(others))} on {num(value(comparison['matched_tasks']))} matched tasks</h2>"
        + _table(
            (
                "pair",
                "measure",
                "tasks",
                "mean difference",
                "95% interval",
                "paired test",
                "better",
                "worse",
                "verdict",
            ),
            rows,
            "paired",
        )
        + (_table(("task", *comparison["jobs"], "flip"), flips, "flips") if flips else "<p>No task flipped.</p>")
    )


_STYLE = """
body { font-family: system-ui, sans-serif; margin: 2rem auto; max-width: 72rem; color: #222; }
table { border-collapse: collapse; margin: 1rem 0; font-size: 0.9rem; }
th, td { border-bottom: 1px solid #ddd; padding: 0.25rem 0.6rem; text-align: left; }
td:nth-child(n+2) { font-variant-numeric: tabular-nums; }
.chart { margin: 1rem 0; }
"""


def report_page(
    job: dict[str, Any],
    trials: Sequence[dict[str, Any]],
    time: dict[str, Any],
    durations: dict[str, Any],
    comparison: dict[str, Any] | None = None,
) -> str:
    """The page: GET /api/jobs/{job}, its trials, /time, /durations and, optionally, /api/compare."""
    sections = [
        _job_section(job),
        _outcome_section(job),
        _trials_section(trials),
        _time_section(time),
        _durations_section(durations),
    ]
    if comparison is not None:
        sections.append(_comparison_section(comparison))
    title = f"harborlight report: {job['job']}"
    return (
        f'<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>{escape(title)}</title>'
        f"<style>{_STYLE}</style></head><body>"
        f"<h1>{escape(title)}</h1>"
        + "".join(sections)
        + "<p><small>Missing values read - : the run did not record them. Intervals are 95%, over tasks."
        "</small></p>"
        f'<script type="application/gzip+base64" id="plotly-gzip">{_plotly_gzip_base64()}</script>'
        f"<script>{_LOADER}</script></body></html>"
    )
