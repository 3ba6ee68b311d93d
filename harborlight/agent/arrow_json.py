"""ClickHouse's JSON and text functions the agent rules read, in Python, for the Arrow compilation
(harborlight/agent/arrow_compile.py): each with the engine's answer for absent keys, wrong types and
malformed JSON, so the two compilations agree. They run only on the few rows whose values need them
(a tool call's arguments, a log body, a model call's messages); Arrow has no JSON functions."""

import json
import math
import re
from functools import lru_cache
from typing import Any

_MISSING = object()


def parse(text: str) -> Any:
    """The document, or _MISSING when `text` is not JSON. Duplicate keys: the first wins, as in the engine."""
    if not text:
        return _MISSING
    try:
        return json.loads(text, object_pairs_hook=_first_wins)
    except (ValueError, RecursionError):
        return _MISSING


def _first_wins(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for k, v in pairs:
        out.setdefault(k, v)
    return out


def _number(v: float | int) -> str:
    if isinstance(v, int):
        return str(v)
    if math.isfinite(v) and v == int(v) and abs(v) < 1e16:
        return str(int(v))
    return repr(v)


def raw(value: Any) -> str:
    """JSONExtractRaw's text of a value: minified, numbers as the engine prints them."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "null"
    if isinstance(value, (int, float)):
        return _number(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, list):
        return "[" + ",".join(raw(v) for v in value) + "]"
    return "{" + ",".join(f"{json.dumps(k, ensure_ascii=False)}:{raw(v)}" for k, v in value.items()) + "}"


def at(doc: Any, *path: str | int) -> Any:
    """The value at `path` (keys, or 1-based / negative indexes into arrays and objects), _MISSING if none."""
    for step in path:
        if isinstance(step, int):
            items = list(doc.values()) if isinstance(doc, dict) else doc if isinstance(doc, list) else None
            if not items:
                return _MISSING
            index = step - 1 if step > 0 else len(items) + step
            if not 0 <= index < len(items):
                return _MISSING
            doc = items[index]
        else:
            if not isinstance(doc, dict) or step not in doc:
                return _MISSING
            doc = doc[step]
    return doc


def extract_string(text: str, *path: str | int) -> str:
    """JSONExtractString: a string as itself, null or absent as '', any other value as its raw text."""
    doc = parse(text)
    if doc is _MISSING:
        return ""
    value = at(doc, *path)
    if value is _MISSING or value is None:
        return ""
    return value if isinstance(value, str) else raw(value)


def extract_raw(text: str, *path: str | int) -> str:
    """JSONExtractRaw: the value's raw text, '' when absent or the JSON is malformed."""
    doc = parse(text)
    value = _MISSING if doc is _MISSING else at(doc, *path)
    return "" if value is _MISSING else raw(value)


def json_type(doc: Any, key: str) -> str:
    value = at(doc, key) if doc is not _MISSING else _MISSING
    if isinstance(value, dict):
        return "Object"
    if isinstance(value, list):
        return "Array"
    return "Null" if value is _MISSING or value is None else "Other"


def part_types(text: str) -> list[str]:
    """JSONExtract(text, 'Array(Tuple(parts Array(Tuple(type String))))'), flattened to the parts' types."""
    doc = parse(text)
    if not isinstance(doc, list):
        return []
    out = []
    for message in doc:
        parts = message.get("parts") if isinstance(message, dict) else None
        if isinstance(parts, list):
            out += [_string_field(p, "type") for p in parts]
    return out


def _string_field(value: Any, key: str) -> str:
    """A tuple field of type String read by JSONExtract: '' when absent, null or not an object."""
    if not isinstance(value, dict) or key not in value or value[key] is None:
        return ""
    v = value[key]
    return v if isinstance(v, str) else raw(v)


def last_text_role(text: str) -> str:
    """The role of the last message when that message has a `text` part, else ''."""
    doc = parse(text)
    if doc is _MISSING:
        return ""
    last = at(doc, -1)
    parts = at(last, "parts") if last is not _MISSING else _MISSING
    types = [_string_field(p, "type") for p in parts] if isinstance(parts, list) else []
    if "text" not in types:
        return ""
    role = at(last, "role")
    return "" if role is _MISSING or role is None else role if isinstance(role, str) else raw(role)


def content_text(content: str) -> str:
    """A message content's text: the string, or its parts' `text` joined when it is a JSON list."""
    if not content.startswith("["):
        return content
    doc = parse(content)
    items = doc if isinstance(doc, list) else []
    return "".join(extract_string(raw(p), "text") for p in items)


def keys(doc: Any) -> list[str]:
    return list(doc) if isinstance(doc, dict) else []


@lru_cache(maxsize=256)
def _compiled(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern)


def extract(text: str, pattern: str) -> str:
    """extract(): the first group of the first match (the whole match without a group), '' without one."""
    m = _compiled(pattern).search(text)
    if m is None:
        return ""
    return (m.group(1) if m.re.groups else m.group(0)) or ""


def extract_all(text: str, pattern: str) -> list[str]:
    compiled = _compiled(pattern)
    return [m.group(1) if compiled.groups else m.group(0) for m in compiled.finditer(text)]


def last_user_content(text: str) -> str:
    """The last message's content text when its role is user (a string, or its `text` parts joined), else ''."""
    doc = parse(text)
    if doc is _MISSING:
        return ""
    last = at(doc, -1)
    if last is _MISSING or extract_string(raw(last), "role") != "user":
        return ""
    content = at(last, "content")
    if isinstance(content, str):
        return content
    items = content if isinstance(content, list) else []
    return "".join(extract_string(raw(p), "text") for p in items if extract_string(raw(p), "type") == "text")
