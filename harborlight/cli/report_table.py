"""`harborlight report --format table`: a job row, where its agent time went, and its trial rows (the
API's JSON) as rich tables."""

from collections.abc import Sequence
from typing import Any

from rich.console import Group
from rich.table import Table

from harborlight.api.routes.display import MISSING, num, pct, plain, seconds, value, with_interval
from harborlight.cli.render import counted

MAX_TRIAL_ROWS = 50


def job_table(job: dict[str, Any]) -> Table:
    table = Table(title=f"job {job['job']}", show_header=False, title_justify="left")
    table.add_column("field", style="bold")
    table.add_column("value")
    passk = job.get("pass_at_k", {})
    rows = [
        ("trials", f"{value(job['n_trials'])} ({value(job['n_running'])} running)"),
        ("raw solve rate [95% CI]", with_interval(pct(value(job["raw_solve_rate"])), job["raw_solve_rate_ci"])),
        (
            "adjusted solve rate [95% CI]",
            with_interval(pct(value(job["adjusted_solve_rate"])), job["adjusted_solve_rate_ci"])
            + f"  (infra: {value(job['n_infra'])})",
        ),
        ("mean score [95% CI]", with_interval(num(value(job["mean_score"]), "{:.4f}"), job["mean_score_ci"], "{:.4f}")),
        (f"mean score by {value(job['parts_by']) or 'part'}", plain(value(job["score_by_group"]))),
        ("regressions (PASS_TO_PASS broken)", num(value(job["n_regressions"]))),
        ("tasks broken (nop control)", plain(value(job["task_broken"]))),
        ("agent", f"{value(job['agent_label']) or '-'} {value(job['agent_version']) or ''}".strip()),
        ("dataset", value(job["dataset"]) or "-"),
        (
            "tokens in / cached / out",
            " / ".join(num(value(job[f])) for f in ("total_input_tokens", "total_cache_tokens", "total_output_tokens")),
        ),
        ("cost (USD, recorded)", num(value(job["total_cost_usd"]), "{:.4f}")),
        ("duration (min)", num(value(job["duration_min"]), "{:.1f}") if not value(job["is_running"]) else "running"),
    ]
    for name, key in (("pass@k [95% CI]", "pass_at_k"), ("pass^k [95% CI]", "pass_hat_k")):
        series = value(passk.get(key)) if passk else None
        intervals = (value(passk.get(f"{key}_ci")) if passk else None) or {}
        rows.append(
            (
                name,
                ", ".join(with_interval(f"k={k}: {v:.3f}", intervals.get(k), "{:.3f}") for k, v in series.items())
                if series
                else "-",
            )
        )
    for row in rows:
        table.add_row(*row)
    return table


def outcome_table(job: dict[str, Any]) -> Table:
    table = Table(title="outcomes (finished trials)", title_justify="left")
    table.add_column("outcome")
    table.add_column("trials", justify="right")
    for outcome, n in (value(job["counts"]) or {}).items():
        if n:
            table.add_row(outcome, str(n))
    return table


TIME_ROWS = (
    ("agent phase", "agent_window_s"),
    ("model calls", "model_time_s"),
    ("tools (no model call)", "tool_time_s"),
    ("gaps (neither)", "gap_time_s"),
)


def time_table(time: dict[str, Any]) -> Table:
    """GET /api/jobs/{job}/time: the finished trials' agent phases summed."""
    table = Table(
        title=f"where the agent time went ({counted(value(time['n_trials']), 'finished trial')})", title_justify="left"
    )
    for column in ("part", "seconds", "share", "note"):
        table.add_column(column, justify="right" if column in ("seconds", "share") else "left")
    window = value(time["agent_window_s"])
    for label, field in TIME_ROWS:
        v = value(time[field])
        share = pct(v / window) if v is not None and window else MISSING
        table.add_row(label, seconds(v), share if field != "agent_window_s" else "", time[field]["note"] or "")
    for model, v in (value(time["model_time_by_model"]) or {}).items():
        table.add_row(f"  model {model}", seconds(v), pct(v / window) if window else MISSING, "")
    return table


def trials_table(trials: Sequence[dict[str, Any]]) -> Table:
    shown = list(trials)[:MAX_TRIAL_ROWS]
    more = len(trials) - len(shown)
    table = Table(title="trials" + (f" (first {len(shown)} of {len(trials)})" if more else ""), title_justify="left")
    for name, justify in (
        ("trial", "left"),
        ("task", "left"),
        ("outcome", "left"),
        ("reward", "right"),
        ("total s", "right"),
        ("agent s", "right"),
        ("tokens in", "right"),
        ("cost", "right"),
        ("exception", "left"),
    ):
        table.add_column(name, justify=justify)  # type: ignore[arg-type]
    for t in shown:
        table.add_row(
            t["trial"],
            t["task"] or "-",
            "running" if t["is_running"] else (value(t["outcome"]) or "-"),
            num(value(t["reward"]), "{:g}"),
            num(value(t["dur_total"]), "{:.1f}"),
            num(value(t["dur_agent"]), "{:.1f}"),
            num(value(t["n_input_tokens"])),
            num(value(t["cost_usd"]), "{:.4f}"),
            value(t["exception_type"]) or "",
        )
    return table


def report_tables(job: dict[str, Any], trials: Sequence[dict[str, Any]], time: dict[str, Any]) -> Group:
    return Group(job_table(job), outcome_table(job), time_table(time), trials_table(trials))
