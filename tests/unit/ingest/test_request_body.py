"""Bodies are inflated within the limit, whole or not at all: a cut stream, a bomb, junk after a member."""

import gzip
import zlib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from harborlight.ingest.request_body import inflate
from harborlight.write_errors import InvalidRequest, TooLarge
from tests.support.bombs import gzip_bomb

LIMIT = 1 << 20


@settings(max_examples=200, deadline=None)
@given(
    body=st.binary(min_size=1, max_size=4096),
    cut=st.integers(min_value=0),
    encoding=st.sampled_from(["gzip", "deflate"]),
)
def test_a_compressed_body_inflates_whole_or_is_refused_never_half_read(body, cut, encoding):
    packed = gzip.compress(body) if encoding == "gzip" else zlib.compress(body)
    assert inflate(packed, encoding, LIMIT) == body
    short = packed[: cut % len(packed)]
    with pytest.raises(InvalidRequest, match="cut short|not valid"):
        inflate(short, encoding, LIMIT)


def test_gzip_without_its_crc_and_size_trailer_is_refused():
    packed = gzip.compress(b"x" * 1000)
    with pytest.raises(InvalidRequest, match="cut short"):
        inflate(packed[:-8], "gzip", LIMIT)


def test_concatenated_gzip_members_are_read_one_after_the_other_within_one_budget():
    assert inflate(gzip.compress(b"ab") + gzip.compress(b"cd"), "gzip", LIMIT) == b"abcd"
    with pytest.raises(TooLarge):
        inflate(gzip.compress(bytes(LIMIT // 2 + 1)) * 2, "gzip", LIMIT)


def test_junk_after_a_gzip_member_is_refused():
    with pytest.raises(InvalidRequest, match="not valid gzip"):
        inflate(gzip.compress(b"ab") + b"junk", "gzip", LIMIT)


def test_a_bomb_stops_at_the_limit():
    with pytest.raises(TooLarge, match=f"exceeds the {LIMIT}-byte limit"):
        inflate(gzip_bomb(1 << 30), "gzip", LIMIT)
