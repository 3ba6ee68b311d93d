"""Trial records from the store: the two aggregate rows of a trial (harborlight/read/statements/trial_rows_sql.py) merged
into one TrialFacts. The only Python work is per trial, never per span.

A trial is running while its harness has reported phases but not yet the root `harbor.trial` span
(a span is exported when it ends, so the root arrives last). A trial with no lifecycle spans at all
(an agent streaming without a harness) is not running; it simply has no verdict.
"""

from collections.abc import Sequence

from clickhouse_connect.driver.client import Client

from harborlight.agent import identity as agent_identity
from harborlight.read.derive.records import Interval, LoadedTrial, TrialFacts, VerifierReport
from harborlight.read.derive.trial_state import TrialState, trial_state
from harborlight.read.statements.trial_rows_sql import (
    REPORT_PREFIX,
    REWARD_PREFIX,
    TRIAL_EVENTS,
    TRIAL_LIFECYCLE,
    TRIAL_RUNS,
)

MAX_TRIALS = 1_000_000  # "no limit" for whole-job loads
_NS = 1e-9
_REPORT_BOOLS = ("resolved", "patch_exists", "patch_applied")
_REPORT_INTS = ("f2p_pass", "f2p_fail", "p2p_pass", "p2p_fail")


def _seconds(ns: int | None) -> float | None:
    return None if ns is None else ns * _NS


def _interval(row: dict, phase: str) -> Interval | None:
    start = row.get(f"{phase}_start")
    return None if start is None else Interval(_seconds(start), _seconds(row.get(f"{phase}_end")))


def _number(text: str) -> float | None:
    try:
        return float(text)
    except ValueError:
        return None


def _rewards(attrs: dict[str, str]) -> dict[str, float] | None:
    values = {k[len(REWARD_PREFIX) :]: _number(v) for k, v in attrs.items()}
    kept = {k: v for k, v in sorted(values.items()) if v is not None}
    if "reward" in kept:  # the main reward first: main_reward() falls back to the first key
        kept = {"reward": kept.pop("reward"), **kept}
    return kept or None


def _report(attrs: dict[str, str]) -> VerifierReport | None:
    fields = {k[len(REPORT_PREFIX) :]: v for k, v in attrs.items()}
    bools = {k: fields[k].lower() in ("true", "1") for k in _REPORT_BOOLS if fields.get(k, "") != ""}
    ints = {k: int(n) for k in _REPORT_INTS if (n := _number(fields.get(k, ""))) is not None}
    return VerifierReport(**bools, **ints) if bools or ints else None


def _facts(events: dict, life: dict | None) -> TrialFacts:
    life = life or {}
    root = _interval(life, "trial")
    phases = {p: _interval(life, p) for p in ("environment_setup", "agent_setup", "agent_execution", "verifier")}
    exception = next(((t, m) for _, t, m in life.get("exceptions", ()) if t), (None, None))
    attempt = (
        events["attempt"]
        if events["attempt"] is not None
        else (int(n) if (n := _number(life.get("attempt") or "")) is not None else None)
    )
    n_status = events["n_with_status"]
    return TrialFacts(
        job=events["job"],
        trial=events["trial"],
        task=events["task"] or life.get("task") or None,
        source=life.get("source") or None,
        attempt=attempt,
        agent_name=events["agent"] or life.get("agent") or None,
        agent_version=life.get("agent_version") or events["agent_version"] or None,
        model=life.get("model") or events["model"] or None,
        started_at=root.start if root else None,
        finished_at=root.end if root else None,
        job_n_planned=life.get("job_n_planned"),
        is_running=trial_state(root is not None, any(phases.values())) is TrialState.RUNNING,
        **phases,
        rewards=_rewards(life.get("rewards") or {}),
        exception_type=exception[0],
        exception_message=exception[1] or None,
        report=_report(life.get("report") or {}),
        category=life.get("category") or None,
        n_input_tokens=events["input_tokens"],
        n_cache_tokens=events["cache_tokens"],
        n_output_tokens=events["output_tokens"],
        cost_usd=events["cost_usd"],
        n_steps=events["n_steps"],
        n_model_calls=events["n_model_calls"],
        n_tool_calls=events["n_tool_calls"],
        n_rate_limited=events["n_rate_limited"] if n_status else None,
    )


def _dicts(client: Client, sql: str, parameters: dict) -> list[dict]:
    result = client.query(sql, parameters=parameters)
    names = result.column_names
    return [dict(zip(names, row, strict=True)) for row in result.result_rows]


def load_trials(
    client: Client,
    tenant: str,
    *,
    jobs: Sequence[str] = (),
    trial: str = "",
    trials: Sequence[str] = (),
    after: str = "",
    limit: int = MAX_TRIALS,
) -> list[LoadedTrial]:
    """Trials of `jobs` (all jobs when empty) named `trial` or among `trials` (any when empty), in
    trial-name order after `after`, at most `limit`. Computed from the events: see harborlight/summaries/ for
    the stored rows the API reads."""
    base = {"tenant": tenant, "jobs": list(jobs)}
    named = {**base, "trial": trial, "trials": list(trials), "after": after}
    scope = {**named, "limit": limit}
    events = _dicts(client, TRIAL_EVENTS, scope)
    if not events:
        return []
    whole_jobs = bool(jobs) and not trial and not trials and not after and len(events) < limit
    names = [] if whole_jobs else sorted({e["trial"] for e in events})  # whole jobs: no 1000-name IN list
    runs = agent_identity.run_parameters(
        client.query(TRIAL_RUNS.text, parameters=TRIAL_RUNS.bind(named)).result_rows[0][0]
    )
    lifecycle_rows = _dicts(client, TRIAL_LIFECYCLE.text, TRIAL_LIFECYCLE.bind({**base, "trials": names, **runs}))
    lifecycle = {(r["job"], r["trial"]): r for r in lifecycle_rows}
    return [
        LoadedTrial(
            _facts(e, lifecycle.get((e["job"], e["trial"]))),
            _seconds(e["first_seen"]),
            _seconds(e["last_seen"]),
            e["n_events"],
        )
        for e in events
    ]
