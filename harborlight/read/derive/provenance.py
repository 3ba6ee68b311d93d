"""How a derived value was obtained, carried next to the value itself.

Every field the derivations produce is a `Valued`: the value (None when there is no evidence, so
it serialises as JSON null and never as 0), one of four provenance markers, and an optional note
saying why a value is missing or what it was computed from.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class Provenance(StrEnum):
    """The four markers of the field guide's provenance column."""

    MEASURED = "measured"  # read verbatim from the telemetry (a span, an attribute, a log event)
    DERIVED = "derived"  # arithmetic over measured values, deterministic
    INFERRED = "inferred"  # a heuristic: a table of names, a keyword rule, a pattern over text
    UNAVAILABLE = "unavailable"  # the run never recorded it; nothing is invented


@dataclass(frozen=True, slots=True)
class Valued[T]:
    """One derived value with its provenance. `value is None` always means "no evidence"."""

    value: T | None
    provenance: Provenance
    note: str | None = None

    def __post_init__(self) -> None:
        if self.value is None and self.provenance is not Provenance.UNAVAILABLE:
            object.__setattr__(self, "provenance", Provenance.UNAVAILABLE)

    @property
    def known(self) -> bool:
        return self.value is not None

    def to_json(self) -> dict[str, object]:
        """The wire shape: {"value": ..., "provenance": "...", "note": ...}."""
        return {"value": _jsonable(self.value), "provenance": self.provenance.value, "note": self.note}


def measured[T](value: T | None, note: str | None = None) -> Valued[T]:
    return Valued(value, Provenance.MEASURED, note)


def derived[T](value: T | None, note: str | None = None) -> Valued[T]:
    return Valued(value, Provenance.DERIVED, note)


def inferred[T](value: T | None, note: str | None = None) -> Valued[T]:
    return Valued(value, Provenance.INFERRED, note)


def unavailable[T](note: str) -> Valued[T]:
    return Valued(None, Provenance.UNAVAILABLE, note)


def _jsonable(value: object) -> object:
    if isinstance(value, tuple):
        return [_jsonable(item) for item in value]
    if isinstance(value, dict):
        return {str(key): _jsonable(item) for key, item in value.items()}
    if isinstance(value, StrEnum):
        return value.value
    if hasattr(value, "__dataclass_fields__"):
        return {name: _jsonable(getattr(value, name)) for name in value.__dataclass_fields__}
    return value


def valued_fields_json(record: object) -> dict[str, object]:
    """A result record (a dataclass of Valued fields and plain fields) as a JSON-ready dict."""
    out: dict[str, object] = {}
    for name in record.__dataclass_fields__:  # type: ignore[attr-defined]
        item = getattr(record, name)
        out[name] = item.to_json() if isinstance(item, Valued) else _jsonable(item)
    return out
