"""A job's `result.json` stats computed the way Harbor 0.26 computes them (pure).

`JobStats.from_trial_results`, then the `Mean` metric over the rewards of trials whose reward is
valid, then pass@k (`harbor.utils.pass_at_k`). A reward is valid when the verifier produced rewards
and every recorded exception's error policy says the reward still counts (Harbor's
`harbor.models.trial.error_policy`, copied below). tests/importers compare with Harbor itself.
"""

from collections import defaultdict

from harborlight.transfer.harbor_files import AgentDatasetStats, JobStats, TrialResult

# Exception types whose trial still has a valid reward (Harbor's has_valid_reward=True groups);
# unknown types count as valid too (UNKNOWN_ERROR_POLICY).
_INVALID_REWARD = frozenset(
    {
        "EnvironmentStartTimeoutError",
        "SandboxBuildFailedError",
        "AgentSetupTimeoutError",
        "HealthcheckError",
        "SandboxLikelyOutOfMemoryError",
        "MemoryLimitExceededError",
        "SSHAccessError",
        "GKEExecStreamClosedError",
        "GKEPodNotFoundError",
        "RuntimeRequestError",
        "AddTestsDirError",
        "DownloadVerifierDirError",
        "ApiError",
        "ApiRateLimitError",
        "ApiInternalServerError",
        "ApiOverloadedError",
        "ApiConnectionClosedError",
        "ApiResponseStalledError",
        "UnknownApiError",
        "NetworkConnectionError",
        "ApiConnectionError",
        "ApiUsageLimitError",
        "RateLimitError",
        "InternalServerError",
        "ServiceUnavailableError",
        "APIConnectionError",
        "APIError",
        "Timeout",
        "UnsupportedModelParametersError",
        "BadRequestError",
        "UnprocessableEntityError",
        "UnsupportedParamsError",
        "APIResponseValidationError",
        "BudgetExceededError",
        "VerifierTimeoutError",
        "RewardFileNotFoundError",
        "RewardFileEmptyError",
        "VerifierOutputParseError",
        "AgentAuthenticationError",
        "ModelNotFoundError",
        "ApiProviderResourceNotFoundError",
        "AuthenticationError",
        "PermissionDeniedError",
        "NotFoundError",
        "ServiceOperationsUnsupportedError",
        "VercelScopeError",
        "DspyImportError",
        "MissingExtraError",
        "RegradeError",
        "CancelledError",
    }
)


def evals_key(trial: TrialResult) -> str:
    model = trial.agent_info.model_info.name if trial.agent_info.model_info else None
    dataset = trial.source or "adhoc"
    return f"{trial.agent_info.name}__{model}__{dataset}" if model else f"{trial.agent_info.name}__{dataset}"


def _exception_types(trial: TrialResult) -> set[str]:
    types = {trial.exception_info.exception_type} if trial.exception_info else set()
    for step in trial.step_results or []:
        if isinstance(info := step.get("exception_info"), dict) and info.get("exception_type"):
            types.add(info["exception_type"])
    return types


def reward_valid(trial: TrialResult) -> bool:
    if trial.verifier_result is None or not trial.verifier_result.rewards:
        return False
    return not (_exception_types(trial) & _INVALID_REWARD)


def _reward_key(value: float | int) -> str:
    """Harbor keys reward_stats by the value; JSON makes it a string ("1.0", "0")."""
    return str(value)


def _mean(rewards: list[dict[str, float | int] | None]) -> dict[str, float]:
    keys = sorted({k for r in rewards if r is not None for k in r})
    if len(keys) <= 1:
        values = [0 if r is None else next(iter(r.values()), 0) for r in rewards]
        return {"mean": sum(values) / len(values)}
    return {k: sum(0 if r is None else r.get(k, 0) for r in rewards) / len(rewards) for k in keys}


def _eligible_k(max_k: int) -> list[int]:
    ks: set[int] = set()
    k = 2
    while k <= max_k:
        ks.add(k)
        k *= 2
    k = 5
    while k <= max_k:
        ks.add(k)
        k += 5
    return sorted(ks)


def _pass_at_k_for_task(n: int, c: int, k: int) -> float:
    if n - c < k:
        return 1.0
    product = 1.0
    for i in range(k):
        product *= (n - c - i) / (n - i)
    return 1.0 - product


def pass_at_k(trials: list[TrialResult]) -> dict[int, float]:
    successes: dict[str, list[int]] = defaultdict(list)
    for trial in trials:
        if not reward_valid(trial):
            continue
        rewards = trial.verifier_result.rewards if trial.verifier_result else None
        if rewards is None:
            continue
        if len(rewards) != 1:
            return {}
        value = next(iter(rewards.values()))
        if value not in (0, 1):
            return {}
        successes[trial.task_name].append(int(value))
    if not successes:
        return {}
    ks = _eligible_k(min(len(s) for s in successes.values()))
    return {k: sum(_pass_at_k_for_task(len(s), sum(s), k) for s in successes.values()) / len(successes) for k in ks}


def job_stats(trials: list[TrialResult], n_total_trials: int, n_running_trials: int = 0) -> JobStats:
    """Stats over the finished trials (those with a result.json); running ones are counted apart."""
    stats = JobStats()
    groups: dict[str, list[TrialResult]] = defaultdict(list)
    for trial in trials:
        stats.n_completed_trials += 1
        key = evals_key(trial)
        groups[key].append(trial)
        group = stats.evals.setdefault(key, AgentDatasetStats())
        if reward_valid(trial) and trial.verifier_result and trial.verifier_result.rewards is not None:
            group.n_trials += 1
            for name, value in trial.verifier_result.rewards.items():
                group.reward_stats.setdefault(name, {}).setdefault(_reward_key(value), []).append(trial.trial_name)
        types = _exception_types(trial)
        for exception_type in sorted(types):
            group.exception_stats.setdefault(exception_type, []).append(trial.trial_name)
        if types:
            group.n_errors += 1
            stats.n_errored_trials += 1
            stats.n_cancelled_trials += "CancelledError" in types
        context = trial.agent_result
        if context is not None:
            if context.n_input_tokens is not None:
                stats.n_input_tokens = (stats.n_input_tokens or 0) + context.n_input_tokens
            if context.n_cache_tokens is not None:
                stats.n_cache_tokens = (stats.n_cache_tokens or 0) + context.n_cache_tokens
            if context.n_output_tokens is not None:
                stats.n_output_tokens = (stats.n_output_tokens or 0) + context.n_output_tokens
            if context.cost_usd is not None:
                stats.cost_usd = (stats.cost_usd or 0.0) + context.cost_usd
    stats.n_running_trials = n_running_trials
    stats.n_pending_trials = max(n_total_trials - stats.n_completed_trials - n_running_trials, 0)
    for key, members in groups.items():
        rewards = [t.verifier_result.rewards for t in members if reward_valid(t) and t.verifier_result]
        if rewards:
            stats.evals[key].metrics.append(_mean(rewards))
        stats.evals[key].pass_at_k = pass_at_k(members)
    return stats
