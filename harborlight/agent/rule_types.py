"""The vocabulary of the agent convention table (harborlight/agent/rules.py): conditions, kind rules,
fact aliases and tool categories. Plain frozen records; harborlight/agent/compile.py gives them SQL."""

import re
from dataclasses import dataclass, fields, replace
from functools import cache
from typing import Literal

Source = Literal["span", "log"]
FactType = Literal["string", "int", "float", "bool", "status"]
How = Literal["measured", "derived", "inferred"]


@dataclass(frozen=True)
class When:
    """A conjunction of tests on one span or log record; every test given must hold.

    `names` / `prefixes` / `suffixes` test the span name or the normalised event name;
    `attrs` are (key, allowed values) pairs; `has` holds when any listed attribute is present;
    `ends` are (key, allowed endings) pairs: the attribute's value ends with one of them.
    """

    source: Source | None = None
    names: tuple[str, ...] = ()
    prefixes: tuple[str, ...] = ()
    suffixes: tuple[str, ...] = ()
    attrs: tuple[tuple[str, tuple[str, ...]], ...] = ()
    has: tuple[tuple[str, ...], ...] = ()
    ends: tuple[tuple[str, tuple[str, ...]], ...] = ()
    scope: str | None = None
    service_prefix: str | None = None
    not_service_prefix: str | None = None
    min_value: tuple[str, int] | None = None
    correlated: bool | None = None
    root: bool | None = None

    def __and__(self, other: "When") -> "When":
        merged = {}
        for f in fields(self):
            mine, theirs = getattr(self, f.name), getattr(other, f.name)
            if f.name in ("attrs", "has", "ends"):
                merged[f.name] = mine + theirs
            elif theirs not in (None, ()):
                assert mine in (None, (), theirs), f"conflicting {f.name}: {mine} / {theirs}"
                merged[f.name] = theirs
        return replace(self, **merged)

    def label(self) -> str:
        if self.names:
            return self.names[0]
        if self.prefixes:
            return self.prefixes[0] + "*"
        if self.suffixes:
            return "*" + self.suffixes[0]
        if self.attrs:
            key, values = self.attrs[0]
            return f"{key}={values[0]}"
        if self.has:
            return f"has:{self.has[0][0]}"
        return "root" if self.root else (self.source or "any")


def span(*names: str) -> When:
    return When(source="span", names=names)


def event(*names: str) -> When:
    return When(source="log", names=names)


def attr(key: str, *values: str) -> When:
    return When(attrs=((key, values),))


def ends(key: str, *endings: str) -> When:
    return When(ends=((key, endings),))


def has(*keys: str) -> When:
    return When(has=(keys,))


def prefix(*prefixes: str) -> When:
    return When(prefixes=prefixes)


def suffix(*suffixes: str) -> When:
    return When(suffixes=suffixes)


def scope(name: str) -> When:
    return When(scope=name)


def service(name_prefix: str) -> When:
    return When(service_prefix=name_prefix)


def not_service(name_prefix: str) -> When:
    return When(not_service_prefix=name_prefix)


@dataclass(frozen=True)
class KindRule:
    """Signals matching `when` are of `kind` (None: a metadata log record, not an agent event).

    resolve: "" (final), "agent" (session if root else subagent; refined on read), or
    "root_session" (session if root, else group).
    """

    producer: str
    kind: str | None
    when: When
    resolve: Literal["", "agent", "root_session"] = ""

    @property
    def label(self) -> str:
        return f"{self.producer}:{self.when.label()}"


@dataclass(frozen=True)
class Alias:
    """Where a fact may be found. `key` is a span/log attribute, `resource:<key>` a resource
    attribute, or `@<name>` a value of the record itself (see agent_compile.COLUMNS).
    `plus` lists attributes added when present; `scale` multiplies; `when` restricts the alias.
    The value may be read inside the attribute: `json` names a member of the JSON object it holds (a
    scalar; a dotted path names a nested member), `pattern` is a regular expression whose first group is the value (no match: absent).
    `named` gives the value another name: (prefix of the value, the name it stands for), first match wins."""

    key: str
    plus: tuple[str, ...] = ()
    scale: float | None = None
    how: How = "measured"
    when: When | None = None
    json: str | None = None
    pattern: str | None = None
    named: tuple[tuple[str, str], ...] = ()

    @property
    def reads_inside(self) -> bool:
        """Whether the value is computed from the attribute rather than the attribute itself."""
        return self.json is not None or self.pattern is not None or bool(self.named)


@dataclass(frozen=True)
class Fact:
    """One agent fact: the agent_events column it fills and its aliases in precedence order.
    `only_kinds` limits it to events of those kinds (other rows get NULL, and skip the work)."""

    name: str
    column: str
    type: FactType
    aliases: tuple[Alias, ...]
    only_kinds: tuple[str, ...] = ()


@dataclass(frozen=True)
class Category:
    """A tool category: exact lower-cased tool names and name prefixes."""

    name: str
    names: tuple[str, ...]
    prefixes: tuple[str, ...] = ()


@dataclass(frozen=True)
class FlatMessages:
    """Messages flattened into one attribute per field, numbered from 0 (OpenInference's
    `llm.input_messages.<n>.message.role`, OpenLLMetry's `gen_ai.prompt.<n>.role`): `<prefix><n><role>` and
    `<prefix><n><text>` for each text suffix, the first present being the message's text."""

    prefix: str
    role: str
    texts: tuple[str, ...]
    # A message's tool calls, `<prefix><n><calls><k><field>`: (calls, id field, name field, arguments field).
    tool_calls: tuple[str, str, str, str] = ("", "", "", "")

    def pattern(self, suffixes: tuple[str, ...]) -> str:
        """A regular expression of the attribute keys of one of `suffixes`, the message number its group."""
        return _keys_pattern(self.prefix, suffixes)


@cache  # asked for every message of every model call a trajectory reads (14,000 times for 500 calls)
def _keys_pattern(prefix: str, suffixes: tuple[str, ...]) -> str:
    ends = "|".join(re.escape(s) for s in suffixes)
    return f"^{re.escape(prefix)}([0-9]+)(?:{ends})$"


@dataclass(frozen=True)
class Derived:
    """A child record synthesised from content a record carries (a carrier), for producers whose
    reasoning, output or user text has no record of its own.

    One `kind` row when attribute `key` is present (a `@` key: when its value is not empty); or, with `parts`, one row per part of a listed
    type in the JSON messages `key` holds (GenAI `[{role, parts: [{type, content}]}]`), in order.
    `when` and `kinds` (the carrier's own kind) restrict the carrier.
    """

    producer: str
    key: str
    kind: str = ""
    parts: tuple[tuple[str, str], ...] = ()  # (part type, kind)
    when: When | None = None
    kinds: tuple[str, ...] = ()

    @property
    def label(self) -> str:
        return f"{self.producer}:{self.key}"
