"""A request body read and inflated within a byte limit, so no body, of any size or encoding, is held whole
past it: a declared or streamed body over the limit is refused before it is all read, and gzip or deflate is
inflated only up to the limit (a 2 MiB gzip bomb stops at 16 MiB, never reaches its 3 GiB). An inflated
stream must end as its format says (a gzip member's CRC and size trailer, a zlib stream's checksum): a cut
body is refused rather than half-read. The bounded inflation (inflate_within) is the one every front door
uses: OTLP/HTTP, the API's uploads, the SQL port (harborlight/sqlport/clickhouse_compression.py, with its codings)."""

import zlib
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from typing import Protocol

from starlette.requests import ClientDisconnect

from harborlight.write_errors import InvalidRequest, TooLarge

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


class Decoder(Protocol):
    """A zlib-style streaming decoder (zlib's, lzma's, bz2's; others wrapped to look alike)."""

    @property
    def eof(self) -> bool: ...

    def decompress(self, data: bytes, max_length: int) -> bytes: ...


@dataclass(frozen=True)
class Refusals:
    """What a front door answers when a body cannot be inflated, each built from a reason."""

    undecodable: Callable[[str], Exception]  # the decoder's own error message
    past_limit: Callable[[], Exception]
    cut_short: Callable[[], Exception]


def inflate_within(
    body: bytes,
    new_decoder: Callable[[], Decoder],
    limit: int | None,
    members: bool,
    decode_errors: tuple[type[Exception], ...],
    refusals: Refusals,
) -> tuple[bytes, bytes]:
    """`body` decoded, never past `limit` bytes (None: no limit), each stream to its end (a cut one is
    refused); with `members`, stream after stream while more than zero padding follows (concatenated gzip
    members, as gzip readers take them). Returns what was decoded and the bytes after the last stream.
    One copy for every front door (OTLP/HTTP, the API, the SQL port): a bomb stops at the limit."""
    out, rest, budget = [], body, limit
    while True:
        decoder = new_decoder()
        try:
            # max_length bounds what one call may produce: one byte more than the budget tells "too large"
            part = decoder.decompress(rest, 0 if budget is None else budget + 1)
        except decode_errors as exc:
            raise refusals.undecodable(str(exc)) from None
        if budget is not None:
            if len(part) > budget:
                raise refusals.past_limit()
            budget -= len(part)
        out.append(part)
        if not decoder.eof:
            raise refusals.cut_short()
        rest = getattr(decoder, "unused_data", b"")
        if not members or not rest.strip(b"\x00"):
            return b"".join(out), rest


def inflate(body: bytes, encoding: str, max_bytes: int | None) -> bytes:
    """The body decoded as its Content-Encoding says ('', identity, gzip or deflate), at most `max_bytes`
    (None: no limit). Concatenated gzip members are read one after the other, as gzip readers do; zero
    padding after the last is allowed."""
    encoding = encoding.strip().lower()
    if encoding in ("", "identity"):
        return body
    if encoding not in _WBITS:
        raise InvalidRequest(f"unsupported Content-Encoding {encoding!r}; use gzip, deflate or none")
    refusals = Refusals(
        undecodable=lambda reason: InvalidRequest(f"body is not valid {encoding}: {reason}"),
        past_limit=lambda: TooLarge(f"decompressed body exceeds the {max_bytes}-byte limit"),
        cut_short=lambda: InvalidRequest(
            f"{encoding} body is cut short: its stream does not end (no checksum trailer)"
        ),
    )
    inflated, _ = inflate_within(
        body, lambda: zlib.decompressobj(wbits=_WBITS[encoding]), max_bytes, encoding == "gzip", (zlib.error,), refusals
    )
    return inflated
