"""The terminal the commands print to (the values' formatting is harborlight/api/routes/display.py, shared with
the HTML report).

Names, messages and every other value come from telemetry: whoever sent it chose them. A value never
reaches the terminal as anything but text: no markup (`[bold]`, `[link=...]` print as they are) and no
control character (an ESC that would clear the screen or set the window title, a carriage return that
would overwrite the line, a bidirectional override that would reorder it): each shows as a visible escape,
`\\x1b`, `\\u202e` (`printable`). The commands pass the API's documents through `printable_json` before
laying them out (so columns are measured on what is shown), and the console itself passes every piece of
text it writes through `printable`, whatever the renderable: a value a command did not pass still cannot
reach the terminal (it may then be cut at its column's width, an escape being wider than the character
rich measured)."""

import json
import os
import re
import sys
from collections.abc import Iterable
from typing import Any

from rich.console import Console, ConsoleOptions, RenderableType
from rich.segment import Segment

# C0 but newline and tab, DEL, C1; the bidirectional embeddings, overrides and isolates and the
# marks; the line and paragraph separators (some terminals break lines on them).
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]")


def _escaped(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def printable(text: str) -> str:
    """`text` with every control character as a visible escape (`\\x1b`, `\\u202e`); newlines and tabs kept."""
    return _CONTROL.sub(_escaped, text)


def printable_json(document: Any) -> Any:
    """A JSON document (dicts, lists, strings, numbers) with `printable` applied to every string, keys too;
    iterative, so a tree of any depth passes."""
    if isinstance(document, str):
        return printable(document)
    if not isinstance(document, (dict, list)):
        return document
    root: Any = {} if isinstance(document, dict) else []
    stack: list[tuple[Any, Any]] = [(document, root)]
    while stack:
        source, target = stack.pop()
        items = source.items() if isinstance(source, dict) else enumerate(source)
        for key, value in items:
            if isinstance(value, dict):
                copied: Any = {}
                stack.append((value, copied))
            elif isinstance(value, list):
                copied = []
                stack.append((value, copied))
            else:
                copied = printable(value) if isinstance(value, str) else value
            if isinstance(target, dict):
                target[printable(key) if isinstance(key, str) else key] = copied
            else:
                target.append(copied)
    return root


def json_text(document: Any) -> str:
    """`document` as JSON for a terminal or a script: UTF-8 as it is, but a control character the encoder
    leaves raw (C1, bidirectional controls, line separators) as its `\\uXXXX` escape: the same JSON."""
    return _CONTROL.sub(lambda m: f"\\u{ord(m.group()):04x}", json.dumps(document, ensure_ascii=False))


def write_document(text: str, is_json: bool = False) -> None:
    """A document the API wrote (summary.md, metrics.json, the HTML page) on stdout: as it is into a file
    or a pipe; to a terminal, its control characters as visible escapes (JSON's `\\uXXXX` in JSON, so it
    stays the same JSON)."""
    if sys.stdout.isatty():
        text = _CONTROL.sub(lambda m: f"\\u{ord(m.group()):04x}", text) if is_json else printable(text)
    sys.stdout.write(text)


def print_json(document: Any) -> None:
    """A command's --json answer on stdout (json_text)."""
    sys.stdout.write(json_text(document) + "\n")


class PrintableConsole(Console):
    """A rich Console that writes no control character of the text it renders: every text segment passes
    through `printable` (the console's own control segments, cursor moves of a live display, pass as
    they are, and styles are rendered by rich from Style objects, never from the text)."""

    def render(self, renderable: RenderableType, options: ConsoleOptions | None = None) -> Iterable[Segment]:
        for segment in super().render(renderable, options):
            if segment.control or not _CONTROL.search(segment.text):
                yield segment
            else:
                yield Segment(printable(segment.text), segment.style)


def console(**options: Any) -> Console:
    """The terminal's width, or 160 columns when piped (rich would fold tables at 80); COLUMNS wins.
    No markup: names come from telemetry, and "[x]" in a span name must print as it is; no control
    character of any value (PrintableConsole)."""
    width = None if sys.stdout.isatty() or "COLUMNS" in os.environ else 160
    return PrintableConsole(**{"width": width, "markup": False, "emoji": False, **options})


def counted(n: int | None, noun: str) -> str:
    """'1 step', '3 steps', '- steps' (no count): a count with its noun in the right number."""
    if n is None:
        return f"- {noun}s"
    return f"{n:,} {noun}" + ("" if n == 1 else "s")
