"""What harborlight should answer about a recorded run, derived from the script the fake played and
from the agent's own reports (its cost, the token counts its telemetry carries). Pure: no I/O."""

from dataclasses import dataclass

from tests.real_agents.agents.base import Reports
from tests.real_agents.episodes import Episode
from tests.real_agents.providers.script import SIDE_TURN, ToolCall, Usage
from tests.real_agents.recordings import Recording
from tests.real_agents.run_agent import AGENTS


@dataclass(frozen=True)
class Tokens:
    """harborlight's token convention: input includes cache reads and writes, output includes reasoning."""

    input: int | None
    cached: int | None
    cache_write: int | None
    output: int | None
    reasoning: int | None


@dataclass(frozen=True)
class Call:
    model: str | None  # None for a refused call told without its model
    tokens: Tokens | None  # None for a refused (429) call
    status: int
    side: bool
    subagent: bool = False


@dataclass(frozen=True)
class Tool:
    name: str
    category: str
    call_id: str
    arguments: dict
    paths: tuple[str, ...]
    fails: bool
    subagent: bool  # made by a sub-agent


@dataclass(frozen=True)
class Expected:
    agent: str
    version: str | None  # None when the agent's telemetry does not say it
    model: str | None  # the main model: the trial's and the trajectory's (None when the agent never tells it)
    prompt: str | None  # None when the agent's telemetry carries no content
    answer: str | None
    calls: list[Call]  # every model call in order, refused and side calls included
    tools: list[Tool]
    cost_usd: float | None
    workspace: str

    @property
    def answered(self) -> list[Call]:
        return [c for c in self.calls if c.status == 200]

    @property
    def steps(self) -> list[Call]:
        """The calls that are steps of the trajectory: the main agent's answered ones."""
        return [c for c in self.answered if not c.side and not c.subagent]

    def total(self, field: str, calls: list[Call] | None = None) -> int | None:
        """The sum over `calls` (every answered call by default); null when one of them does not report it."""
        values = [getattr(c.tokens, field) for c in (self.answered if calls is None else calls)]
        return None if any(v is None for v in values) else sum(values)


def tokens(usage: Usage, reports: Reports) -> Tokens:
    if not reports.tokens:
        return Tokens(None, None, None, None, None)
    return Tokens(
        input=usage.input + usage.cached + usage.cache_write,
        cached=usage.cached if reports.cached else None,
        cache_write=usage.cache_write if reports.cache_write else None,
        output=usage.output + usage.reasoning,
        reasoning=usage.reasoning if reports.reasoning else None,
    )


def tool_arguments(call: ToolCall, defaults: dict[str, dict]) -> dict:
    """The arguments as the agent tells them: the model's, with the defaults the agent fills in; a freeform
    input as Harbor's own Codex trajectory writes it: {"input": text}."""
    if not isinstance(call.arguments, dict):
        return {"input": call.arguments}
    return {**call.arguments, **{k: v for k, v in defaults.get(call.name, {}).items() if k not in call.arguments}}


def reports(recording: Recording) -> Reports:
    """What the agent's telemetry tells in the recording's signal mix (an agent may tell less by default)."""
    module = AGENTS[recording.agent]
    return module.reports(recording.traces) if hasattr(module, "reports") else module.REPORTS


def expect(recording: Recording) -> Expected:
    module, told = AGENTS[recording.agent], reports(recording)
    episode: Episode = recording.episode
    calls = []
    for served in recording.served:
        if served.side:
            calls.append(Call(served.model if told.model else None, tokens(SIDE_TURN.usage, told), 200, True))
            continue
        turn = episode.turns[served.turn]
        if turn.status != 200 and not told.refusals:
            continue
        usage = tokens(turn.usage, told) if turn.usage else None
        model = served.model if told.model and (turn.status == 200 or told.refusal_model) else None
        calls.append(Call(model, usage, turn.status, False, turn.subagent))
    tools = [
        Tool(
            c.name,
            c.category,
            module.call_id(c),
            tool_arguments(c, module.ARGUMENT_DEFAULTS) if told.content else {},
            c.paths if told.content else (),
            c.fails,
            turn.subagent,
        )
        for turn in episode.turns
        for c in turn.calls
    ]
    version = recording.version if module.VERSION_REPORTED else None
    return Expected(
        recording.agent,
        version,
        module.MODEL if told.model else None,
        # the prompt as the agent tells the model it (the agent's told_prompt, where it rewrites it)
        getattr(module, "told_prompt", str)(episode.prompt) if told.content else None,
        episode.answer if told.content else None,
        calls,
        tools,
        recording.reported_cost_usd,
        recording.workspace,
    )
