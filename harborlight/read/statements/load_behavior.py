"""One trial's tool calls and model calls from the store, as the typed records behaviour takes."""

from bisect import bisect_right
from dataclasses import dataclass

from clickhouse_connect.driver.client import Client

from harborlight.read.derive.records import AgentCall, ModelCall, ToolCategory
from harborlight.read.statements.behavior_sql import GOLD_PATCH, MODEL_CALLS, TOOL_CALLS

MAX_CALLS = 100_000
_NS = 1e-9


@dataclass(frozen=True, slots=True)
class TrialCalls:
    calls: tuple[AgentCall, ...]
    model_calls: tuple[ModelCall, ...]
    calls_recorded: bool  # the agent's telemetry is there (tool or model events): zero calls is a real zero
    truncated: bool  # more than MAX_CALLS of either kind: the first MAX_CALLS were used
    gold_patch: str | None  # the task's reference fix (a unified diff); None: not recorded


def _category(value: str | None) -> ToolCategory:
    try:
        return ToolCategory(value or "other")
    except ValueError:
        return ToolCategory.OTHER


def load_calls(client: Client, tenant: str, trial: str, job: str = "") -> TrialCalls:
    params = {"tenant": tenant, "trial": trial, "job": job, "limit": MAX_CALLS + 1}
    model_rows = client.query(MODEL_CALLS, parameters=params).result_rows
    tool_rows = client.query(TOOL_CALLS, parameters=params).result_rows
    truncated = len(model_rows) > MAX_CALLS or len(tool_rows) > MAX_CALLS
    model_rows, tool_rows = model_rows[:MAX_CALLS], tool_rows[:MAX_CALLS]
    models = tuple(
        ModelCall(
            timestamp=ts * _NS,
            input_tokens=i,
            cached_tokens=c,
            cache_write_tokens=w,
            output_tokens=o,
            reasoning_tokens=r,
            cost_usd=cost,
            http_status=status,
            error_type=error,
        )
        for ts, i, c, w, o, r, cost, status, error in model_rows
    )
    model_starts = [ts for ts, *_ in model_rows]
    calls = tuple(
        AgentCall(
            index=index,
            name=name,
            category=_category(category),
            timestamp=ts * _NS,
            # the model turn that issued the call: model requests started before it (0 = none yet)
            step=bisect_right(model_starts, ts) if model_starts else None,
            targets=tuple(targets),
            args_key=args_key,
            failed=None if success is None else not success,
            failed_inferred=how == "inferred",
            tool_call_id=call_id,
        )
        for index, (ts, name, category, targets, success, how, call_id, args_key) in enumerate(tool_rows)
    )
    gold = client.query(GOLD_PATCH, parameters=params).result_rows
    return TrialCalls(
        calls,
        models,
        calls_recorded=bool(calls or models),
        truncated=truncated,
        gold_patch=(gold[0][0] or None) if gold else None,
    )
