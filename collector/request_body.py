"""A request body read and inflated within a byte limit, so no body, of any size or encoding, is held whole
past it: a declared or streamed body over the limit is refused before it is all read, and gzip or deflate is
inflated only up to the limit (a 2 MiB gzip bomb stops at 16 MiB, never reaches its 3 GiB). An inflated
stream must end as its format says (a gzip member's CRC and size trailer, a zlib stream's checksum): a cut
body is refused rather than half-read."""

import zlib
from collections.abc import AsyncIterator

from starlette.requests import ClientDisconnect

from collector.errors import InvalidRequest, TooLarge

GZIP_MAGIC = b"\x1f\x8b"
_WBITS = {"gzip": 31, "deflate": 15}  # a gzip member; a zlib stream (what HTTP's "deflate" is)


async def read_limited(declared_length: str | None, chunks: AsyncIterator[bytes], max_bytes: int) -> bytes:
    """The body as sent, refused as soon as it is known to be past `max_bytes`."""
    if declared_length and declared_length.isdigit() and int(declared_length) > max_bytes:
        raise TooLarge(f"body of {declared_length} bytes exceeds the {max_bytes}-byte limit")
    parts, size = [], 0
    try:
        async for chunk in chunks:
            size += len(chunk)
            if size > max_bytes:
                raise TooLarge(f"body exceeds the {max_bytes}-byte limit")
            parts.append(chunk)
    except ClientDisconnect:  # nobody is left to answer; a refusal ends the request quietly
        raise InvalidRequest("the connection closed before the body was complete") from None
    return b"".join(parts)


def inflate(body: bytes, encoding: str, max_bytes: int | None) -> bytes:
    """The body decoded as its Content-Encoding says ('', identity, gzip or deflate), at most `max_bytes`
    (None: no limit). Concatenated gzip members are read one after the other, as gzip readers do."""
    encoding = encoding.strip().lower()
    if encoding in ("", "identity"):
        return body
    if encoding not in _WBITS:
        raise InvalidRequest(f"unsupported Content-Encoding {encoding!r}; use gzip, deflate or none")
    out, rest = [], body
    budget = max_bytes
    while True:
        inflater = zlib.decompressobj(wbits=_WBITS[encoding])
        try:
            # max_length bounds what one call may produce: one byte more than the budget tells "too large"
            part = inflater.decompress(rest, 0 if budget is None else budget + 1)
        except zlib.error as exc:
            raise InvalidRequest(f"body is not valid {encoding}: {exc}") from None
        if budget is not None:
            if len(part) > budget:
                raise TooLarge(f"decompressed body exceeds the {max_bytes}-byte limit")
            budget -= len(part)
        out.append(part)
        if not inflater.eof:
            raise InvalidRequest(f"{encoding} body is cut short: its stream does not end (no checksum trailer)")
        rest = inflater.unused_data
        if encoding != "gzip" or not rest.strip(b"\x00"):  # zero padding after the last member is allowed
            return b"".join(out)
