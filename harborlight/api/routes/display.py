"""How the API's values read for people, in the CLI's tables and the HTML report alike (pure).

The API sends derived fields as {"value", "provenance", "note"}; a missing value is null and is
shown as "-", never as 0.
"""

from datetime import UTC, datetime
from typing import Any

MISSING = "-"


def is_valued(field: Any) -> bool:
    return isinstance(field, dict) and "provenance" in field and "value" in field


def value(field: Any) -> Any:
    """A valued field's value; a plain field as it is."""
    return field.get("value") if is_valued(field) else field


def num(v: Any, fmt: str = "{:,}") -> str:
    return MISSING if v is None else fmt.format(v)


def pct(v: float | None) -> str:
    return MISSING if v is None else f"{v:.1%}"


def note(field: Any) -> str:
    """A valued field's note ('' when it has none, or for a plain field)."""
    return (field.get("note") or "") if is_valued(field) else ""


def interval(field: Any, fmt: str = "{:.1%}") -> str | None:
    """`[low, high]` of a `…_ci` field (a 95% interval, or a bare one); None when it is null."""
    ci = value(field)
    return f"[{fmt.format(ci['low'])}, {fmt.format(ci['high'])}]" if ci else None


def with_interval(text: str, field: Any, fmt: str = "{:.1%}", sep: str = " ") -> str:
    """`text [low, high]` from a `…_ci` field; `text` alone when it is null.
    sep="\n" puts the interval under the value (narrow table cells)."""
    bounds = interval(field, fmt)
    return f"{text}{sep}{bounds}" if bounds and text != MISSING else text


def seconds(v: float | None) -> str:
    if v is None:
        return MISSING
    return f"{v:,.1f} s" if abs(v) >= 10 else f"{v:.2f} s" if abs(v) >= 1 else f"{v * 1000:.3g} ms"


def nanos_as_seconds(ns: int | None) -> str:
    return MISSING if ns is None else seconds(ns / 1e9)


def utc(unix: float | int | None, nanos: bool = False) -> str:
    """A Unix time (seconds, or nanoseconds) as UTC, to the millisecond."""
    if unix is None:
        return MISSING
    moment = datetime.fromtimestamp(unix / 1e9 if nanos else unix, UTC)
    return moment.strftime("%Y-%m-%d %H:%M:%S.%f")[:-3]


def plain(v: Any) -> str:
    """Any JSON value, short: dicts as `k: v, ...`, lists joined, floats trimmed."""
    if v is None:
        return MISSING
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, float):
        return f"{v:,.4g}" if abs(v) < 1e6 else f"{v:,.0f}"
    if isinstance(v, int):
        return f"{v:,}"
    if isinstance(v, dict):
        return ", ".join(f"{k}: {plain(x)}" for k, x in v.items()) or "(none)"
    if isinstance(v, list):
        return ", ".join(plain(x) for x in v) or "(none)"
    return str(v)
