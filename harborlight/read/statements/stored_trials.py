"""Trials as stored in trial_rows (harborlight/summaries/ keeps them fresh): the facts the job derivations take,
and the trial rows the API answers, read back without touching a trial's events."""

import json
from collections.abc import Sequence
from dataclasses import asdict
from typing import Any

from clickhouse_connect.driver.client import Client

from harborlight.read.derive.records import Interval, LoadedTrial, ScorePart, TrialFacts, VerifierReport
from harborlight.read.statements.trial_summary_sql import (
    FACTS,
    GENERATION,
    JOB_NAMES,
    ROWS,
    TRIAL_GENERATION,
    TRIAL_JOBS,
    VERDICTS,
)

MAX_TRIALS = 1_000_000  # "no limit" for whole-job reads
_INTERVALS = ("environment_setup", "agent_setup", "agent_execution", "verifier")


def facts_json(facts: TrialFacts) -> str:
    return json.dumps(asdict(facts), separators=(",", ":"))


def facts_from_json(text: str) -> TrialFacts:
    fields = json.loads(text)
    for name in _INTERVALS:
        if fields[name] is not None:
            fields[name] = Interval(**fields[name])
    if fields["report"] is not None:
        fields["report"] = VerifierReport(**fields["report"])
    fields["parts"] = tuple(ScorePart(**p) for p in fields["parts"])
    return TrialFacts(**fields)


def _parameters(tenant: str, jobs: Sequence[str], trial: str, after: str, limit: int) -> dict[str, Any]:
    return {"tenant": tenant, "jobs": list(jobs), "trial": trial, "after": after, "limit": limit}


def stored_trials(
    client: Client, tenant: str, *, jobs: Sequence[str] = (), trial: str = "", after: str = "", limit: int = MAX_TRIALS
) -> list[LoadedTrial]:
    """Trials of `jobs` (all when empty), named `trial` (any when ''), in trial-name order after `after`."""
    rows = client.query(FACTS, parameters=_parameters(tenant, jobs, trial, after, limit)).result_rows
    return [LoadedTrial(facts_from_json(facts), first, last, n) for facts, first, last, n in rows]


def stored_rows(
    client: Client, tenant: str, *, jobs: Sequence[str] = (), trial: str = "", after: str = "", limit: int = MAX_TRIALS
) -> list[dict[str, Any]]:
    """The trial rows as the API answers them, chosen as `stored_trials` chooses."""
    rows = client.query(ROWS, parameters=_parameters(tenant, jobs, trial, after, limit)).result_rows
    return [json.loads(row) for (row,) in rows]


def verdicts(
    client: Client, tenant: str, trials: Sequence[str]
) -> dict[tuple[str, str], tuple[str | None, float | None]]:
    """{(job, trial): (outcome, reward)} of the stored rows named `trials`."""
    rows = client.query(VERDICTS, parameters={"tenant": tenant, "trials": list(trials)}).result_rows
    return {(job, trial): (outcome, reward) for job, trial, outcome, reward in rows}


def job_names(client: Client, tenant: str, after: str, limit: int) -> list[str]:
    return [
        r[0] for r in client.query(JOB_NAMES, parameters={"tenant": tenant, "after": after, "limit": limit}).result_rows
    ]


def jobs_of_trial(client: Client, tenant: str, trial: str) -> list[str]:
    return [r[0] for r in client.query(TRIAL_JOBS, parameters={"tenant": tenant, "trial": trial}).result_rows]


def job_generation(client: Client, tenant: str, job: str) -> tuple[int, int]:
    """Changes whenever a row of the job's trials is derived again (their count, the newest version)."""
    n, newest = client.query(GENERATION, parameters={"tenant": tenant, "job": job}).result_rows[0]
    return n, newest or 0


def trial_generation(client: Client, tenant: str, trial: str) -> tuple[object, ...]:
    """Changes whenever the trial's rows are derived again (in any of its jobs) and whenever anything is committed."""
    rows, committed = client.query(TRIAL_GENERATION, parameters={"tenant": tenant, "trial": trial}).result_rows[0]
    return tuple(rows), tuple(committed)
