"""What a fake model provider plays: a list of turns with fixed, distinct token usage, and a record of
what it served, so a test can compare harborlight's answers with what the model really said."""

import itertools
import threading
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Usage:
    """One response's tokens. `input` excludes cached and cache-write tokens (Anthropic's split); each
    provider writes these in its own shape."""

    input: int
    output: int
    cached: int = 0
    cache_write: int = 0
    reasoning: int = 0


@dataclass(frozen=True)
class ToolCall:
    """`arguments` is a JSON object, or the text of a freeform tool's input (Codex's apply_patch).
    The rest says what the call does, for the tests' expectations; the provider ignores it."""

    name: str
    arguments: dict | str
    id: str
    category: str  # edit, read, execute, other (the tool categories of docs/field-guide.md)
    paths: tuple[str, ...] = ()  # absolute paths of the files it reads or writes
    fails: bool = False


@dataclass(frozen=True)
class Turn:
    """One model response: reasoning, text and tool calls in that order, or a refusal (status 429)."""

    usage: Usage | None
    text: str = ""
    calls: tuple[ToolCall, ...] = ()
    reasoning: str = ""
    status: int = 200
    subagent: bool = False  # answers a sub-agent: a model call of the trial, not a step of its main trajectory


def rate_limited() -> Turn:
    return Turn(usage=None, status=429)


@dataclass(frozen=True)
class Served:
    """One answer the fake gave: a turn of the script, or a side call (title, classifier, ...)."""

    turn: Turn
    index: int | None  # the turn's place in the script; None for a side call
    model: str
    response_id: str
    request: dict = field(repr=False)

    @property
    def side(self) -> bool:
        return self.index is None


# A side call (a session title, a routing or next-speaker check) is answered with this, whatever asked.
SIDE_TURN = Turn(usage=Usage(input=71, output=7), text='{"title": "Hello file"}')


class Script:
    """The turns in order; `next_turn` hands out one per main-model request (thread-safe)."""

    def __init__(self, turns: list[Turn]) -> None:
        self.turns = list(turns)
        self.served: list[Served] = []
        self.unscripted: list[dict] = []  # main-model requests after the last turn
        self._lock = threading.Lock()
        self._position = 0
        self._ids = itertools.count(1)

    def next_turn(self, model: str, request: dict) -> Served | None:
        with self._lock:
            if self._position == len(self.turns):
                self.unscripted.append(request)
                return None
            self._position += 1
            return self._serve(self.turns[self._position - 1], self._position - 1, model, request)

    def side_call(self, model: str, request: dict, text: str = SIDE_TURN.text) -> Served:
        with self._lock:
            return self._serve(Turn(SIDE_TURN.usage, text), None, model, request)

    def _serve(self, turn: Turn, index: int | None, model: str, request: dict) -> Served:
        served = Served(turn, index, model, f"resp_{next(self._ids):04d}", request)
        self.served.append(served)
        return served

    @property
    def finished(self) -> bool:
        return self._position == len(self.turns) and not self.unscripted

    def main(self) -> list[Served]:
        return [s for s in self.served if not s.side]

    def side(self) -> list[Served]:
        return [s for s in self.served if s.side]
