"""The settings a statement carries, read from the statement as ClickHouse's formatter writes it.

`formatQuerySingleLine` writes every `SETTINGS` clause (of the statement and of each subquery) as
`SETTINGS name = literal, name = literal` and every `SET` as `SET name = literal, ...`; its literals are
normalized (strings in single quotes with backslash escapes, maps as `{'k':'v'}`). This module finds those
clauses in that text, reads their assignments, and writes the text back with some values replaced, so the
interface can check each setting and combine a caller's `additional_table_filters` with the tenant's. The
caller re-parses the result with the engine and compares its AST with the original, so a clause misread here
fails closed. Pure: text in, text out.
"""

import re
from dataclasses import dataclass

from harborlight.sql_text import literal

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_OPEN, _CLOSE = "([{", ")]}"
_ESCAPES = {"b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t", "0": "\0", "a": "\a", "v": "\v", "e": "\x1b"}


class Unreadable(Exception):
    """Text that is not in the formatter's shape."""


@dataclass(frozen=True)
class Assignment:
    name: str
    literal: str  # as the formatter wrote it
    start: int  # where the literal is in the text
    end: int


def _skip_quoted(text: str, i: int) -> int:
    """The position after the quoted token starting at i ('...', `...` or "...", backslash escapes)."""
    quote, i = text[i], i + 1
    while i < len(text):
        if text[i] == "\\":
            i += 2
            continue
        if text[i] == quote:
            return i + 1
        i += 1
    raise Unreadable("an unterminated quoted token")


def _literal_end(text: str, i: int) -> int:
    """The end of the literal starting at i: quoted tokens and brackets balanced, up to a top-level ',', ' ' or ')'."""
    depth = 0
    while i < len(text):
        c = text[i]
        if c in "'`\"":
            i = _skip_quoted(text, i)
            continue
        if c in _OPEN:
            depth += 1
        elif c in _CLOSE:
            if depth == 0:
                return i
            depth -= 1
        elif depth == 0 and c in ", ":
            return i
        i += 1
    if depth:
        raise Unreadable("unbalanced brackets in a literal")
    return i


def _assignments(text: str, i: int) -> list[Assignment]:
    """`name = literal[, name = literal]...` from position i."""
    found = []
    while True:
        name = _NAME.match(text, i)
        if not name or not text.startswith(" = ", name.end()):
            raise Unreadable(f"no setting assignment at position {i}")
        start = name.end() + 3
        end = _literal_end(text, start)
        if end == start:
            raise Unreadable(f"no value for setting {name.group()}")
        found.append(Assignment(name.group(), text[start:end], start, end))
        following = _NAME.match(text, end + 2) if text.startswith(", ", end) else None
        if not following or not text.startswith(" = ", following.end()):
            return found
        i = end + 2


def settings_clauses(text: str) -> list[list[Assignment]]:
    """Every SETTINGS clause of a formatted statement, in order, each as its assignments."""
    clauses, i = [], 0
    while i < len(text):
        c = text[i]
        if c in "'`\"":
            i = _skip_quoted(text, i)
            continue
        if text.startswith(" SETTINGS ", i):
            clauses.append(_assignments(text, i + len(" SETTINGS ")))
            i = clauses[-1][-1].end
            continue
        i += 1
    return clauses


def set_assignments(text: str) -> list[Assignment]:
    """The assignments of a formatted `SET a = 1, b = 'x'`."""
    if not text.startswith("SET "):
        raise Unreadable("not a SET statement")
    found = _assignments(text, 4)
    if found[-1].end != len(text.rstrip()):
        raise Unreadable("text after the SET assignments")
    return found


def replaced(text: str, values: dict[int, str]) -> str:
    """The text with the literal starting at each position in `values` replaced."""
    out, last = [], 0
    for assignment in sorted(_at_positions(text, values), key=lambda a: a.start):
        out += [text[last : assignment.start], values[assignment.start]]
        last = assignment.end
    return "".join(out) + text[last:]


def _at_positions(text: str, values: dict[int, str]) -> list[Assignment]:
    every = [a for clause in settings_clauses(text) for a in clause]
    chosen = [a for a in every if a.start in values]
    if len(chosen) != len(values):
        raise Unreadable("a value to replace is not a setting's value")
    return chosen


def unquoted(literal: str) -> str:
    """A formatter's string literal as its value; a bare literal (a number) as written."""
    if not literal.startswith("'"):
        return literal
    if len(literal) < 2 or not literal.endswith("'"):
        raise Unreadable("not a string literal")
    out, i, body = [], 0, literal[1:-1]
    while i < len(body):
        c = body[i]
        if c == "\\" and i + 1 < len(body):
            nxt = body[i + 1]
            if nxt == "x" and i + 3 < len(body):
                out.append(chr(int(body[i + 2 : i + 4], 16)))
                i += 4
                continue
            out.append(_ESCAPES.get(nxt, nxt))
            i += 2
            continue
        out.append(c)
        i += 1
    return "".join(out)


def map_entries(literal: str) -> list[tuple[str, str]]:
    """The entries of a formatter's `{'k':'v', ...}` literal of strings, in order."""
    if not (literal.startswith("{") and literal.endswith("}")):
        raise Unreadable("not a map literal")
    entries, i, body = [], 0, literal[1:-1]
    while i < len(body):
        key_end = _skip_quoted(body, i) if body[i : i + 1] == "'" else -1
        if key_end < 0 or body[key_end : key_end + 1] != ":" or body[key_end + 1 : key_end + 2] != "'":
            raise Unreadable("a map entry that is not 'key':'value'")
        value_end = _skip_quoted(body, key_end + 1)
        entries.append((unquoted(body[i:key_end]), unquoted(body[key_end + 1 : value_end])))
        i = value_end + 2 if body.startswith(", ", value_end) else value_end
        if i != len(body) and not body.startswith(", ", value_end):
            raise Unreadable("a map entry followed by something else")
    return entries


def map_literal(entries: list[tuple[str, str]]) -> str:
    return "{" + ", ".join(f"{literal(k)}: {literal(v)}" for k, v in entries) + "}"
