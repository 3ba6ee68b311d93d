"""Query parameters parsed by hand, so bad input is a 400 with a sentence rather than a 422 dump."""

from harborlight.api.errors import BadRequest


def bounded_int(name: str, raw: str | None, default: int | None, low: int, high: int) -> int | None:
    """`raw` as a whole number in [low, high]; `default` when absent or empty."""
    if raw is None or raw == "":
        return default
    try:
        number = int(raw)
    except ValueError:
        number = None
    if number is None or not low <= number <= high:
        raise BadRequest(f"{name} must be a whole number from {low} to {high}, got {raw!r}")
    return number
