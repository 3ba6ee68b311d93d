"""A log record reads back as written, and a damaged one is recognised, never read back as data."""

from hypothesis import given, settings
from hypothesis import strategies as st

from harborlight.store import Signal
from harborlight.wal.record import BadBody, BadHeader, Parsed, Record, Truncated, encode, parse

records = st.builds(
    Record,
    signal=st.sampled_from(list(Signal)),
    tenant=st.one_of(st.none(), st.text(min_size=1, max_size=40)),
    digest=st.binary(min_size=16, max_size=16),
    items=st.integers(0, 2**32 - 1),
    payload=st.binary(max_size=2000),
    nested=st.booleans(),
    expanded_bytes=st.integers(0, 2**63),
)


def _framed(record: Record, at: int = 1_700_000_000_000_000_000) -> bytes:
    return b"".join(encode(record, at))


@given(records)
def test_a_record_reads_back_as_written(record):
    frame = parse(_framed(record, 123), 0)
    assert isinstance(frame, Parsed)
    assert frame.record == record and frame.appended_at_ns == 123
    assert frame.end == len(_framed(record))


@settings(max_examples=300)
@given(records, st.data())
def test_a_flipped_bit_anywhere_is_detected_and_never_read_as_a_record(record, data):
    framed = bytearray(_framed(record))
    bit = data.draw(st.integers(0, len(framed) * 8 - 1))
    framed[bit // 8] ^= 1 << (bit % 8)
    frame = parse(bytes(framed), 0)
    assert not isinstance(frame, Parsed)
    if bit >= 12 * 8:  # in the body: the header still says where the next record starts
        assert isinstance(frame, BadBody) and frame.end == len(framed)
    else:
        assert isinstance(frame, BadHeader | Truncated)


@given(records, st.data())
def test_a_record_cut_short_anywhere_is_truncated(record, data):
    framed = _framed(record)
    cut = data.draw(st.integers(0, len(framed) - 1))
    assert isinstance(parse(framed[:cut], 0), Truncated)


def test_zeros_where_a_record_should_be_are_not_a_record():
    # What a power loss can leave: the file grew, its last blocks never written.
    assert isinstance(parse(bytes(64), 0), BadHeader)
