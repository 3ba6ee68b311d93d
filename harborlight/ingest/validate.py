"""Per-item checks on an export request: bad items are removed and counted, the valid rest is kept.

Pure: bytes in, a Checked result out. The common case (every item valid) keeps the original bytes,
so the engine decodes exactly what the client sent.
"""

from collections.abc import Iterator
from dataclasses import dataclass, field

from google.protobuf.message import DecodeError, Message

from harborlight.commit.otlp_insert import needs_nested_decoding
from harborlight.ingest.lenient import first_invalid_utf8, lenient_class
from harborlight.ingest.limits import Cuts, Limits, cut, enforce, flag, screen
from harborlight.ingest.signals import SignalSpec
from harborlight.store import Signal
from harborlight.write_errors import InvalidRequest, TooLarge

MAX_UNIX_NANO = 2**63 - 1  # DateTime64(9) ends in 2262; later stamps cannot be stored
# The metrics tables' times are DateTime, as the exporter's: its last second is 2106-02-07T06:28:15Z.
MAX_METRIC_UNIX_NANO = 2**32 * 1_000_000_000 - 1
MAX_REASONS = 5


@dataclass
class SourceCounts:
    """What one (service, job) sent in a request."""

    accepted: int = 0
    rejected: int = 0
    truncated: int = 0


@dataclass
class Checked:
    payload: bytes
    accepted: int
    rejected: int = 0
    truncated: int = 0
    reasons: list[str] = field(default_factory=list)
    expanded_bytes: int = 0  # what its rows hold once each item carries its resource and scope
    nested: bool = True  # may hold array or kvlist values (harborlight.commit.otlp_insert.needs_nested_decoding)
    sources: dict[tuple[str, str], SourceCounts] = field(default_factory=dict)

    def message(self, item: str) -> str:
        if not self.rejected:
            return ""
        return f"rejected {self.rejected} {item}(s): " + "; ".join(self.reasons)


def _parse(spec: SignalSpec, body: bytes) -> tuple[Message, bool]:
    try:
        return spec.request.FromString(body), True
    except DecodeError:
        # Invalid UTF-8 in a string field fails the strict parse of the whole request; the lenient
        # classes read strings as bytes so the bad items can be found and dropped one by one.
        try:
            return lenient_class(spec.request).FromString(body), False
        except DecodeError as exc:
            reason = _DEPTH if "MaxDepth" in str(exc) else str(exc)
            raise InvalidRequest(f"not a valid OTLP {spec.request.DESCRIPTOR.name}: {reason}") from exc


_DEPTH = "values nest too deeply (the protobuf parser stops at 100 nested messages: arrays and kvlists in each other)"


def check_request(spec: SignalSpec, body: bytes, limits: Limits = Limits()) -> Checked:
    request, strict = _parse(spec, body)
    checked = Checked(payload=body, accepted=0, nested=needs_nested_decoding(spec.signal, body))
    measure = checked.nested or len(body) > limits.max_attribute_value_bytes  # see limits.screen
    plainly_valid, plain_is_bare = _PLAINLY_VALID[spec.signal], spec.signal in _PLAIN_IS_BARE
    changed = False
    resources_cut: dict[int, bool] = {}  # a resource holds several scope blocks: cut it once
    for block in _blocks(spec.signal, request):
        counts = checked.sources.setdefault(_source(block.resource), SourceCounts())
        container_problem = None if strict else first_invalid_utf8(block.enclosing, skip=_ITEM_FIELDS)
        if id(block.resource) not in resources_cut:
            resources_cut[id(block.resource)] = enforce(block.resource, limits, block.enclosing[0])
        container_cut = resources_cut[id(block.resource)] | enforce(block.scope, limits, block.enclosing[1])
        owner_labels = cut(block.metric, limits, "metric.").labels if block.metric is not None else []
        may_break = screen(block.item_type, limits, measure)
        bad: list[int] = []
        for index, item in enumerate(block.items):
            plain = plainly_valid(item)
            problem = container_problem or (None if plain else _problem(spec.signal, item))
            if not strict:
                problem = problem or first_invalid_utf8(item)
            if problem:
                bad.append(index)
                if len(checked.reasons) < MAX_REASONS and problem not in checked.reasons:
                    checked.reasons.append(problem)
                continue
            cuts = None
            if owner_labels or may_break(item, plain and plain_is_bare):
                cuts = cut(item, limits, cuts=Cuts(list(owner_labels)))
            if cuts:
                flag(item.attributes, cuts, limits)
            if cuts or container_cut:
                counts.truncated += 1
        for index in reversed(bad):
            del block.items[index]
        counts.rejected += len(bad)
        counts.accepted += len(block.items)
        changed = changed or bool(bad) or counts.truncated > 0
        checked.expanded_bytes += block.repeated_bytes()
        if counts.accepted + counts.rejected > limits.max_items_per_request:
            break
    checked.expanded_bytes += len(body)
    checked.accepted = sum(c.accepted for c in checked.sources.values())
    checked.rejected = sum(c.rejected for c in checked.sources.values())
    checked.truncated = sum(c.truncated for c in checked.sources.values())
    if checked.accepted + checked.rejected > limits.max_items_per_request:
        raise TooLarge(
            f"request holds more than {limits.max_items_per_request} {spec.item}s; "
            "send smaller batches (e.g. the exporter's max batch size)"
        )
    if checked.expanded_bytes > limits.max_expanded_request_bytes:
        raise TooLarge(
            f"request would store {checked.expanded_bytes >> 20} MiB once each {spec.item} carries its resource "
            f"and scope (as the tables hold them), more than the {limits.max_expanded_request_bytes >> 20} MiB "
            f"one commit may take: send fewer {spec.item}s per request, or fewer or shorter resource attributes"
        )
    if changed:
        checked.payload = request.SerializeToString()
    return checked


def _source(resource: Message) -> tuple[str, str]:
    """(service.name, harbor.job.name) of a resource, '' where absent."""
    service = job = ""
    for kv in resource.attributes:
        if kv.key == "service.name":
            service = _text(kv.value.string_value)
        elif kv.key == "harbor.job.name":
            job = _text(kv.value.string_value)
    return service, job


def _text(value: str | bytes) -> str:
    return value if isinstance(value, str) else value.decode("utf-8", "replace")


# The repeated fields that hold items; a container's own strings are checked without them.
_ITEM_FIELDS = {"scope_spans", "spans", "scope_logs", "log_records", "scope_metrics", "metrics", "data_points"}


@dataclass
class _Block:
    """A list of items with the messages around it: each stored row of an item repeats its resource and scope
    (and a data point its metric's name, description and unit)."""

    resource: Message
    scope: Message
    items: Message  # the repeated field
    item_type: str  # the items' message name
    enclosing: tuple[Message, ...]  # checked for UTF-8 without their items
    metric: Message | None = None

    def repeated_bytes(self) -> int:
        """What its rows hold beyond the items' own bytes."""
        repeated: int = self.resource.ByteSize() + self.scope.ByteSize()
        if self.metric is not None:
            repeated += len(self.metric.name) + len(self.metric.description) + len(self.metric.unit)
        return len(self.items) * repeated


def _blocks(signal: Signal, request: Message) -> Iterator[_Block]:
    if signal is Signal.traces:
        for rs in request.resource_spans:
            for ss in rs.scope_spans:
                yield _Block(rs.resource, ss.scope, ss.spans, "Span", (rs, ss))
    elif signal is Signal.logs:
        for rl in request.resource_logs:
            for sl in rl.scope_logs:
                yield _Block(rl.resource, sl.scope, sl.log_records, "LogRecord", (rl, sl))
    else:
        for rm in request.resource_metrics:
            for sm in rm.scope_metrics:
                for metric in sm.metrics:
                    kind = metric.WhichOneof("data")
                    if kind is not None:
                        point = metric.DESCRIPTOR.fields_by_name[kind].message_type.fields_by_name["data_points"]
                        yield _Block(
                            rm.resource,
                            sm.scope,
                            getattr(metric, kind).data_points,
                            point.message_type.name,
                            (rm, sm, metric),
                            metric,
                        )


def _id_problem(what: str, value: bytes, size: int, optional: bool) -> str | None:
    if optional and not value:
        return None
    if len(value) != size:
        return f"{what} must be {size} bytes, got {len(value)}"
    if value == bytes(size):
        return f"{what} must not be all zeros"
    return None


def _time_problem(what: str, value: int) -> str | None:
    return f"{what} {value} is beyond year 2262" if value > MAX_UNIX_NANO else None


_ZERO8, _ZERO16 = bytes(8), bytes(16)


# One cheap expression per item that is true for the common, valid case; anything else gets the
# full check below, which names the problem.
def _plain_span(s: Message) -> bool:
    trace_id, span_id, parent = s.trace_id, s.span_id, s.parent_span_id
    return (
        len(trace_id) == 16
        and len(span_id) == 8
        and trace_id != _ZERO16
        and span_id != _ZERO8
        and (not parent or (len(parent) == 8 and parent != _ZERO8))
        and 0 < s.start_time_unix_nano <= s.end_time_unix_nano <= MAX_UNIX_NANO
        and not s.events
        and not s.links
    )


def _plain_log(r: Message) -> bool:
    trace_id, span_id = r.trace_id, r.span_id
    return (
        (not trace_id or (len(trace_id) == 16 and trace_id != _ZERO16))
        and (not span_id or (len(span_id) == 8 and span_id != _ZERO8))
        and r.time_unix_nano <= MAX_UNIX_NANO
        and r.observed_time_unix_nano <= MAX_UNIX_NANO
    )


def _plain_point(p: Message) -> bool:
    return (
        p.time_unix_nano <= MAX_METRIC_UNIX_NANO
        and p.start_time_unix_nano <= MAX_METRIC_UNIX_NANO
        and not any(x.time_unix_nano > MAX_METRIC_UNIX_NANO for x in getattr(p, "exemplars", ()))
    )


def _point_time_problem(what: str, value: int) -> str | None:
    return (
        f"{what} {value} is beyond 2106-02-07 (a metric's time is stored to the second)"
        if value > MAX_METRIC_UNIX_NANO
        else None
    )


_PLAINLY_VALID = {Signal.traces: _plain_span, Signal.logs: _plain_log, Signal.metrics: _plain_point}
_PLAIN_IS_BARE = {Signal.traces}  # a plainly valid span has no events or links (limits.screen's `bare`)


def _problem(signal: Signal, item: Message) -> str | None:
    if signal is Signal.traces:
        return (
            _id_problem("trace_id", item.trace_id, 16, optional=False)
            or _id_problem("span_id", item.span_id, 8, optional=False)
            or _id_problem("parent_span_id", item.parent_span_id, 8, optional=True)
            or ("start_time_unix_nano is missing" if item.start_time_unix_nano == 0 else None)
            or _time_problem("end_time_unix_nano", item.end_time_unix_nano)
            or (
                "end_time_unix_nano is before start_time_unix_nano"
                if item.end_time_unix_nano < item.start_time_unix_nano
                else None
            )
            or next((p for e in item.events if (p := _time_problem("event time", e.time_unix_nano))), None)
            or next(
                (
                    p
                    for link in item.links
                    if (
                        p := _id_problem("link trace_id", link.trace_id, 16, False)
                        or _id_problem("link span_id", link.span_id, 8, False)
                    )
                ),
                None,
            )
        )
    if signal is Signal.logs:
        return (
            _id_problem("trace_id", item.trace_id, 16, optional=True)
            or _id_problem("span_id", item.span_id, 8, optional=True)
            or _time_problem("time_unix_nano", item.time_unix_nano)
            or _time_problem("observed_time_unix_nano", item.observed_time_unix_nano)
        )
    return (
        _point_time_problem("time_unix_nano", item.time_unix_nano)
        or _point_time_problem("start_time_unix_nano", item.start_time_unix_nano)
        or next(
            (
                p
                for x in getattr(item, "exemplars", ())
                if (p := _point_time_problem("exemplar time_unix_nano", x.time_unix_nano))
            ),
            None,
        )
    )
