"""Compressed bodies that inflate to far more than they weigh, built cheaply: one 64 MiB member of zeros
(about 64 KiB gzip-compressed), repeated as concatenated gzip members, which every gzip reader inflates
one after the other."""

import gzip
import zlib
from functools import cache

MEMBER_BYTES = 64 << 20


@cache
def _member() -> bytes:
    return gzip.compress(bytes(MEMBER_BYTES), 9)


def gzip_bomb(inflated_bytes: int) -> bytes:
    return _member() * max(1, inflated_bytes // MEMBER_BYTES)


@cache
def deflate_bomb() -> bytes:
    """A zlib stream (HTTP's deflate) of 1 GiB of zeros, about 1 MiB."""
    compressor = zlib.compressobj(9)
    block = bytes(MEMBER_BYTES)
    return b"".join(compressor.compress(block) for _ in range(16)) + compressor.flush()
