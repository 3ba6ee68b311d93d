"""HTTP content codings as ClickHouse's HTTP interface uses them, for answers and request bodies.

Answers: ClickHouse (HTTPHandler) compresses when the request's Accept-Encoding names a method it knows and
`enable_http_compression` is on, from the URL or the server's default (1 since ClickHouse 25.10); it picks
the first of zstd, br, lz4, snappy, gzip, deflate, xz, bz2 that appears anywhere in the header
(chooseHTTPCompressionMethod: a substring test, q-values ignored) and compresses at
`http_zlib_compression_level` whatever the method. Snappy is not written (ClickHouse itself fails with
NOT_IMPLEMENTED when it picks it): a client that offers it and nothing else gets the answer uncompressed.
Request bodies: decoded by their Content-Encoding, under the names ClickHouse's chooseCompressionMethod
takes (gz, brotli, lzma and zst too); snappy bodies are not read.
"""

import bz2
import gzip
import lzma
import zlib
from collections.abc import Callable
from dataclasses import dataclass

import brotli
import lz4.frame

from harborlight.ingest.request_body import Decoder, Refusals, inflate_within

try:
    from compression import zstd  # Python 3.14
except ImportError:
    from backports import zstd


class _Brotli:
    """brotli's Decompressor with the interface of the standard library's."""

    def __init__(self) -> None:
        self._inner = brotli.Decompressor()

    @property
    def eof(self) -> bool:
        return self._inner.is_finished()

    def decompress(self, data: bytes, max_length: int) -> bytes:
        return self._inner.process(data, output_buffer_limit=max_length)


@dataclass(frozen=True)
class Coding:
    name: str
    compress: Callable[[bytes, int], bytes]
    decompressor: Callable[[], Decoder]


def _level(level: int, low: int = 1, high: int = 9) -> int:
    return min(max(level, low), high)


# In ClickHouse's order of preference.
CODINGS = (
    Coding("zstd", lambda data, level: zstd.compress(data, level=_level(level, 1, 22)), zstd.ZstdDecompressor),
    Coding("br", lambda data, level: brotli.compress(data, quality=_level(level, 0, 11)), _Brotli),
    Coding(
        "lz4",
        lambda data, level: lz4.frame.compress(data, compression_level=_level(level, 1, 12)),
        lz4.frame.LZ4FrameDecompressor,
    ),
    Coding(
        "gzip",
        lambda data, level: gzip.compress(data, compresslevel=_level(level), mtime=0),
        lambda: zlib.decompressobj(wbits=31),
    ),
    Coding("deflate", lambda data, level: zlib.compress(data, _level(level)), zlib.decompressobj),
    Coding("xz", lambda data, level: lzma.compress(data, preset=_level(level, 0, 9)), lzma.LZMADecompressor),
    Coding("bz2", lambda data, level: bz2.compress(data, _level(level)), bz2.BZ2Decompressor),
)
_BY_NAME = {c.name: c for c in CODINGS}
_BY_NAME |= {"gz": _BY_NAME["gzip"], "brotli": _BY_NAME["br"], "lzma": _BY_NAME["xz"], "zst": _BY_NAME["zstd"]}
_DECODE_ERRORS = (OSError, EOFError, zlib.error, lzma.LZMAError, brotli.error, RuntimeError, ValueError)


class BodyTooLarge(Exception):
    pass


class BadBody(Exception):
    pass


class UnknownCoding(BadBody):
    pass


def answer_coding(accept_encoding: str, enabled: bool) -> Coding | None:
    """The coding of an answer, or None for an uncompressed one."""
    if not enabled:
        return None
    return next((c for c in CODINGS if c.name in accept_encoding), None)


def decoded_body(body: bytes, content_encoding: str, limit: int) -> bytes:
    """A request body decoded by its Content-Encoding, never inflated past `limit` bytes (BodyTooLarge); a
    stream that is cut short, has bytes after its end or is not that coding is BadBody."""
    name = content_encoding.strip().lower()
    if name in ("", "identity", "none", "auto"):
        return body
    if name not in _BY_NAME:
        raise UnknownCoding(
            f"Unknown compression method '{content_encoding}'. Only 'auto', 'none', 'gzip', 'deflate', "
            "'br', 'xz', 'zstd', 'lz4', 'bz2' are supported as compression methods"
        )
    refusals = Refusals(
        undecodable=lambda reason: BadBody(f"cannot decode the {name} request body: {reason}"),
        past_limit=lambda: BodyTooLarge(f"the request body inflates past {limit} bytes"),
        cut_short=lambda: BadBody(f"the {name} request body is cut short"),
    )
    decoded, rest = inflate_within(
        body, _BY_NAME[name].decompressor, limit, name in ("gzip", "gz"), _DECODE_ERRORS, refusals
    )
    if rest:
        raise BadBody(f"the {name} request body has bytes after its end")
    return decoded
