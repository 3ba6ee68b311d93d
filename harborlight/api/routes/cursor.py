"""Opaque keyset cursors: the sort key of the last row of a page, base64-encoded JSON."""

import base64
import binascii
import json

from harborlight.api.errors import BadRequest


def encode(key: list) -> str:
    return base64.urlsafe_b64encode(json.dumps(key, separators=(",", ":")).encode()).decode().rstrip("=")


def decode(cursor: str | None, arity: int) -> list | None:
    if not cursor:
        return None
    try:
        key = json.loads(base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)))
    except (binascii.Error, ValueError, UnicodeDecodeError, RecursionError):  # RecursionError: nested too deep
        key = None
    if not isinstance(key, list) or len(key) != arity:
        raise BadRequest("cursor is not one this server issued; pass next_cursor from the previous page")
    return key
