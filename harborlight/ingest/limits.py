"""Size limits on what an export request may carry, the same for every attribute set of the data model:
resource, scope, span, span event, span link, log record, data point and exemplar. Pure: they edit a
decoded message in place and say what they did.

Every string or bytes value longer than the limit is cut (at a UTF-8 boundary): attribute values, nested
ones inside arrays and kvlists included, attribute keys, names (span, event, scope, metric), log bodies.
Attributes beyond the per-set count are dropped, and so are array and kvlist entries beyond it. What was
cut is flagged in the attribute set of the message it belongs to (an item for its own fields and its
events', links' and exemplars' attributes; a resource or scope for its own), with `harborlight.truncated`
(what was cut: keys, `name`, `body`, `event.<key>`, `schema_url`, ...) and `harborlight.dropped_attributes` (how many
attributes were dropped), so nothing is shortened silently.
"""

from collections.abc import Callable
from dataclasses import dataclass, field
from operator import attrgetter

from google.protobuf.internal.containers import RepeatedCompositeFieldContainer
from google.protobuf.message import Message

TRUNCATED_FLAG = "harborlight.truncated"
DROPPED_FLAG = "harborlight.dropped_attributes"


@dataclass(frozen=True)
class Limits:
    max_items_per_request: int = 50_000
    max_attributes_per_item: int = 512  # per attribute set, and entries per array or kvlist value
    max_attribute_value_bytes: int = 256 * 1024  # per string or bytes value, key, name or body
    max_expanded_request_bytes: int = (2048 << 20) // 24  # see harborlight.settings.expanded_request_bytes

    @property
    def harmless_bytes(self) -> int:
        """A message encoded in at most this many bytes breaks no limit: no string in it can be longer, and no
        list in it can hold more entries (an attribute, array or kvlist entry takes at least two bytes)."""
        return min(self.max_attribute_value_bytes, 2 * self.max_attributes_per_item)


@dataclass(frozen=True)
class _Shape:
    """Where a message of one type keeps what the limits apply to."""

    texts: tuple[str, ...] = ()  # string fields, as dotted paths
    values: tuple[str, ...] = ()  # AnyValue fields
    attributes: str | None = "attributes"
    parts: tuple[tuple[str, str], ...] = ()  # repeated sub-messages with attribute sets: (field, label prefix)
    sized: bool = True  # its encoded size is a cheap first look (not so for what holds many items)


_POINT = _Shape(parts=(("exemplars", "exemplar."),))
SHAPES = {
    "Resource": _Shape(),
    "InstrumentationScope": _Shape(texts=("name", "version")),
    "Span": _Shape(texts=("name", "trace_state", "status.message"), parts=(("events", "event."), ("links", "link."))),
    "Event": _Shape(texts=("name",)),
    "Link": _Shape(texts=("trace_state",)),
    "LogRecord": _Shape(texts=("severity_text", "event_name"), values=("body",)),
    "NumberDataPoint": _POINT,
    "HistogramDataPoint": _POINT,
    "ExponentialHistogramDataPoint": _POINT,
    "SummaryDataPoint": _Shape(),
    "Exemplar": _Shape(attributes="filtered_attributes"),
    "Metric": _Shape(texts=("name", "description", "unit"), attributes=None, sized=False),  # metadata is not stored
    **{
        holder: _Shape(texts=("schema_url",), attributes=None, sized=False)  # flagged in the resource or scope held
        for holder in ("ResourceSpans", "ResourceLogs", "ResourceMetrics", "ScopeSpans", "ScopeLogs", "ScopeMetrics")
    },
}


@dataclass
class Cuts:
    labels: list[str] = field(default_factory=list)
    dropped: int = 0

    def __bool__(self) -> bool:
        return bool(self.labels or self.dropped)


def _cut_utf8(data: bytes, limit: int) -> bytes:
    cut = data[:limit]
    # Step back over a partial multi-byte character.
    while cut and (cut[-1] & 0xC0) == 0x80:
        cut = cut[:-1]
    if cut and cut[-1] >= 0xC0:
        cut = cut[:-1]
    return cut


def _cut_field(message: Message, name: str, limit: int, text: bool = True) -> bool:
    """Cuts a string (str, or bytes in the lenient classes) or bytes field to `limit` bytes; True if cut."""
    value = getattr(message, name)
    raw = value if isinstance(value, bytes) else value.encode()
    if len(raw) <= limit:
        return False
    cut = _cut_utf8(raw, limit) if text else raw[:limit]
    setattr(message, name, cut if isinstance(value, bytes) else cut.decode("utf-8", "ignore"))
    return True


def _drop_beyond(entries: RepeatedCompositeFieldContainer[Message], limit: int) -> int:
    extra = max(0, len(entries) - limit)
    if extra:
        del entries[limit:]
    return extra


def _cut_value(value: Message, limits: Limits) -> bool:
    """Cuts an AnyValue, and the values nested in it (their depth is bounded by the protobuf parser's
    recursion limit); True if anything in it was cut or dropped."""
    kind = value.WhichOneof("value")
    limit = limits.max_attribute_value_bytes
    if kind == "string_value":
        return _cut_field(value, "string_value", limit)
    if kind == "bytes_value":
        return _cut_field(value, "bytes_value", limit, text=False)
    changed = False
    if kind == "array_value":
        values = value.array_value.values
        changed = _drop_beyond(values, limits.max_attributes_per_item) > 0
        for v in values:
            changed = _cut_value(v, limits) or changed
    elif kind == "kvlist_value":
        entries = value.kvlist_value.values
        changed = _drop_beyond(entries, limits.max_attributes_per_item) > 0
        for kv in entries:
            changed = _cut_field(kv, "key", limit) | _cut_value(kv.value, limits) or changed
    return changed


def _label(key: str | bytes) -> str:
    return key if isinstance(key, str) else key.decode("utf-8", "replace")


def _cut_attributes(
    attributes: RepeatedCompositeFieldContainer[Message], limits: Limits, prefix: str, cuts: Cuts
) -> None:
    cuts.dropped += _drop_beyond(attributes, limits.max_attributes_per_item)
    for kv in attributes:
        key_cut = _cut_field(kv, "key", limits.max_attribute_value_bytes)
        if _cut_value(kv.value, limits) or key_cut:
            cuts.labels.append(prefix + _label(kv.key))


def _parent(message: Message, path: str) -> tuple[Message, str]:
    *parents, name = path.split(".")
    for part in parents:
        message = getattr(message, part)
    return message, name


def screen(item_type: str, limits: Limits, measure: bool) -> Callable[[Message, bool], bool]:
    """A cheap first look at the items of one type: `may_break(item, bare)` is False when the item surely
    breaks no limit. `measure`: the request is long enough to hold an over-long string, or may hold array or
    kvlist values, so an item's encoded size decides; otherwise only its attribute count and its parts
    (events, links, exemplars) can, and a `bare` item is known to have no parts (looking costs more than
    the rest of the check)."""
    if measure:
        return lambda item, bare: item.ByteSize() > limits.harmless_bytes
    shape, most = SHAPES[item_type], limits.max_attributes_per_item
    assert shape.attributes is not None  # every item type has attributes; resources and scopes are not screened
    attributes = attrgetter(shape.attributes)
    if not shape.parts:
        return lambda item, bare: len(attributes(item)) > most
    parts = [attrgetter(name) for name, _ in shape.parts]
    return lambda item, bare: len(attributes(item)) > most or (not bare and any(len(p(item)) for p in parts))


def cut(message: Message, limits: Limits, prefix: str = "", cuts: Cuts | None = None) -> Cuts:
    """Applies the limits to a message of SHAPES (and its parts); returns what was cut, unflagged."""
    cuts = Cuts() if cuts is None else cuts
    shape = SHAPES[message.DESCRIPTOR.name]
    if shape.sized and message.ByteSize() <= limits.harmless_bytes:
        return cuts
    if shape.attributes:
        _cut_attributes(getattr(message, shape.attributes), limits, prefix, cuts)
    for path in shape.texts:
        holder, name = _parent(message, path)
        if _cut_field(holder, name, limits.max_attribute_value_bytes):
            cuts.labels.append(prefix + path)
    for name in shape.values:
        if message.HasField(name) and _cut_value(getattr(message, name), limits):
            cuts.labels.append(prefix + name)
    for name, part_prefix in shape.parts:
        for part in getattr(message, name):
            cut(part, limits, prefix + part_prefix, cuts)
    return cuts


def flag(attributes: RepeatedCompositeFieldContainer[Message], cuts: Cuts, limits: Limits) -> None:
    """Records `cuts` in an attribute set (the flag's own text is held to the value limit too)."""
    if cuts.labels:
        text = ",".join(dict.fromkeys(cuts.labels))
        _add(attributes, TRUNCATED_FLAG, _cut_utf8(text.encode(), limits.max_attribute_value_bytes).decode())
    if cuts.dropped:
        _add(attributes, DROPPED_FLAG, str(cuts.dropped))


def _add(attributes: RepeatedCompositeFieldContainer[Message], key: str, value: str) -> None:
    kv = attributes.add()
    lenient = isinstance(kv.key, bytes)
    kv.key = key.encode() if lenient else key
    kv.value.string_value = value.encode() if lenient else value


def enforce(message: Message, limits: Limits, holder: Message | None = None) -> bool:
    """Applies the limits to a resource or scope (and the schema URL of the `holder` it comes in) and flags
    it; True if anything was cut."""
    cuts = cut(message, limits)
    if holder is not None:
        cut(holder, limits, cuts=cuts)
    if cuts:
        flag(message.attributes, cuts, limits)
    return bool(cuts)
