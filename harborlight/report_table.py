"""`harborlight report --format table`: a job row and its trial rows (the API's JSON) as rich tables."""

from collections.abc import Sequence
from typing import Any

from rich.console import Group
from rich.table import Table

from harborlight.render import num, pct, value

MAX_TRIAL_ROWS = 50


def job_table(job: dict[str, Any]) -> Table:
    table = Table(title=f"job {job['job']}", show_header=False, title_justify="left")
    table.add_column("field", style="bold")
    table.add_column("value")
    passk = job.get("pass_at_k", {})
    rows = [
        ("trials", f"{value(job['n_trials'])} ({value(job['n_running'])} running)"),
        ("raw solve rate", pct(value(job["raw_solve_rate"]))),
        ("adjusted solve rate", pct(value(job["adjusted_solve_rate"])) + f"  (infra: {value(job['n_infra'])})"),
        ("mean score", num(value(job["mean_score"]), "{:.4f}")),
        ("agent", f"{value(job['agent_label']) or '-'} {value(job['agent_version']) or ''}".strip()),
        ("dataset", value(job["dataset"]) or "-"),
        ("tokens in / cached / out", " / ".join(num(value(job[f])) for f in
                                               ("total_input_tokens", "total_cache_tokens", "total_output_tokens"))),
        ("cost (USD, recorded)", num(value(job["total_cost_usd"]), "{:.4f}")),
        ("duration (min)", num(value(job["duration_min"]), "{:.1f}") if not value(job["is_running"]) else "running"),
    ]
    for name, key in (("pass@k", "pass_at_k"), ("pass^k", "pass_hat_k")):
        series = value(passk.get(key)) if passk else None
        rows.append((name, ", ".join(f"k={k}: {v:.3f}" for k, v in series.items()) if series else "-"))
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


def trials_table(trials: Sequence[dict[str, Any]]) -> Table:
    shown = list(trials)[:MAX_TRIAL_ROWS]
    more = len(trials) - len(shown)
    table = Table(title="trials" + (f" (first {len(shown)} of {len(trials)})" if more else ""), title_justify="left")
    for name, justify in (("trial", "left"), ("task", "left"), ("outcome", "left"), ("reward", "right"),
                          ("total s", "right"), ("agent s", "right"), ("tokens in", "right"),
                          ("cost", "right"), ("exception", "left")):
        table.add_column(name, justify=justify)  # type: ignore[arg-type]
    for t in shown:
        table.add_row(t["trial"], t["task"] or "-", "running" if t["is_running"] else (value(t["outcome"]) or "-"),
                      num(value(t["reward"]), "{:g}"), num(value(t["dur_total"]), "{:.1f}"),
                      num(value(t["dur_agent"]), "{:.1f}"), num(value(t["n_input_tokens"])),
                      num(value(t["cost_usd"]), "{:.4f}"), value(t["exception_type"]) or "")
    return table


def report_tables(job: dict[str, Any], trials: Sequence[dict[str, Any]]) -> Group:
    return Group(job_table(job), outcome_table(job), trials_table(trials))
