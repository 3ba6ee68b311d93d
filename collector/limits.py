"""Size limits on what one item may carry. Pure: they edit a decoded item in place and say what they did.

Over-long attribute values are cut (at a UTF-8 boundary) and attributes beyond the per-item count
are dropped, and the item is flagged with `harborlight.truncated` (the keys cut) and
`harborlight.dropped_attributes` (how many were dropped), so nothing is shortened silently.
"""

from dataclasses import dataclass

from google.protobuf.message import Message

TRUNCATED_FLAG = "harborlight.truncated"
DROPPED_FLAG = "harborlight.dropped_attributes"


@dataclass(frozen=True)
class Limits:
    max_items_per_request: int = 50_000
    max_attributes_per_item: int = 512
    max_attribute_value_bytes: int = 256 * 1024


def _cut_utf8(data: bytes, limit: int) -> bytes:
    cut = data[:limit]
    # Step back over a partial multi-byte character.
    while cut and (cut[-1] & 0xC0) == 0x80:
        cut = cut[:-1]
    if cut and cut[-1] >= 0xC0:
        cut = cut[:-1]
    return cut


def _cut_value(value, limit: int) -> bool:
    """Cuts an AnyValue's string (str, or bytes in the lenient classes) or bytes member; True if cut."""
    kind = value.WhichOneof("value")
    if kind == "string_value":
        text = value.string_value
        raw = text if isinstance(text, bytes) else text.encode()
        if len(raw) > limit:
            cut = _cut_utf8(raw, limit)
            value.string_value = cut if isinstance(text, bytes) else cut.decode("utf-8", "ignore")
            return True
    elif kind == "bytes_value" and len(value.bytes_value) > limit:
        value.bytes_value = value.bytes_value[:limit]
        return True
    return False


def _truncate_values(attributes, limit: int) -> list[str]:
    """Cuts values longer than `limit`; returns the keys cut."""
    return [kv.key if isinstance(kv.key, str) else kv.key.decode("utf-8", "replace")
            for kv in attributes if _cut_value(kv.value, limit)]


def _flag(attributes, key: str, value: str) -> None:
    flag = attributes.add()
    lenient = isinstance(flag.key, bytes)
    flag.key = key.encode() if lenient else key
    flag.value.string_value = value.encode() if lenient else value


def enforce(item: Message, limits: Limits, request_bytes: int) -> bool:
    """Applies the per-item limits to a span, log record or data point; True if anything was cut.
    No value can be longer than the request that carries it, so small requests skip the value check."""
    values_may_be_long = (
        request_bytes > limits.max_attribute_value_bytes and item.ByteSize() > limits.max_attribute_value_bytes
    )
    if not values_may_be_long and len(item.attributes) <= limits.max_attributes_per_item:
        return False
    attributes = item.attributes
    dropped = max(0, len(attributes) - limits.max_attributes_per_item)
    if dropped:
        del attributes[limits.max_attributes_per_item:]
    cut = _truncate_values(attributes, limits.max_attribute_value_bytes)
    for event in getattr(item, "events", ()):
        cut += [f"event.{key}" for key in _truncate_values(event.attributes, limits.max_attribute_value_bytes)]
    if item.DESCRIPTOR.fields_by_name.get("body") and _cut_value(item.body, limits.max_attribute_value_bytes):
        cut.append("body")
    if cut:
        _flag(attributes, TRUNCATED_FLAG, ",".join(cut))
    if dropped:
        _flag(attributes, DROPPED_FLAG, str(dropped))
    return bool(cut or dropped)
