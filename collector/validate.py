"""Per-item checks on an export request: bad items are removed and counted, the valid rest is kept.

Pure: bytes in, a Checked result out. The common case (every item valid) keeps the original bytes,
so the engine decodes exactly what the client sent.
"""

from collections.abc import Iterator
from dataclasses import dataclass, field

from google.protobuf.message import DecodeError, Message

from collector.errors import InvalidRequest, TooLarge
from collector.lenient import first_invalid_utf8, lenient_class
from collector.limits import Limits, enforce
from collector.signals import SignalSpec
from storage import Signal

MAX_UNIX_NANO = 2**63 - 1  # DateTime64(9) ends in 2262; later stamps cannot be stored
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
            raise InvalidRequest(f"not a valid OTLP {spec.request.DESCRIPTOR.name}: {exc}") from exc


def check_request(spec: SignalSpec, body: bytes, limits: Limits = Limits()) -> Checked:
    request, strict = _parse(spec, body)
    checked = Checked(payload=body, accepted=0)
    plainly_valid = _PLAINLY_VALID[spec.signal]
    changed = False
    for resource, container, items in _item_lists(spec.signal, request):
        counts = checked.sources.setdefault(_source(resource), SourceCounts())
        container_problem = None if strict else first_invalid_utf8(container, skip=_ITEM_FIELDS)
        bad: list[int] = []
        for index, item in enumerate(items):
            problem = container_problem or (None if plainly_valid(item) else _problem(spec.signal, item))
            if not strict:
                problem = problem or first_invalid_utf8(item)
            if problem:
                bad.append(index)
                if len(checked.reasons) < MAX_REASONS and problem not in checked.reasons:
                    checked.reasons.append(problem)
            elif enforce(item, limits, len(body)):
                counts.truncated += 1
        for index in reversed(bad):
            del items[index]
        counts.rejected += len(bad)
        counts.accepted += len(items)
        changed = changed or bool(bad) or counts.truncated > 0
        if counts.accepted + counts.rejected > limits.max_items_per_request:
            break
    checked.accepted = sum(c.accepted for c in checked.sources.values())
    checked.rejected = sum(c.rejected for c in checked.sources.values())
    checked.truncated = sum(c.truncated for c in checked.sources.values())
    if checked.accepted + checked.rejected > limits.max_items_per_request:
        raise TooLarge(
            f"request holds more than {limits.max_items_per_request} {spec.item}s; "
            "send smaller batches (e.g. the exporter's max batch size)"
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


def _item_lists(signal: Signal, request: Message) -> Iterator[tuple[Message, object, Message]]:
    """Yields (resource, scope block, repeated items); a scope block carries its resource's strings."""
    if signal is Signal.traces:
        for rs in request.resource_spans:
            for ss in rs.scope_spans:
                yield rs.resource, _Pair(rs, ss), ss.spans
    elif signal is Signal.logs:
        for rl in request.resource_logs:
            for sl in rl.scope_logs:
                yield rl.resource, _Pair(rl, sl), sl.log_records
    else:
        for rm in request.resource_metrics:
            for sm in rm.scope_metrics:
                for metric in sm.metrics:
                    kind = metric.WhichOneof("data")
                    if kind is not None:
                        yield rm.resource, _Pair(rm, sm, metric), getattr(metric, kind).data_points


class _Pair:
    """The enclosing messages of a list of items, checked for UTF-8 as one."""

    def __init__(self, *messages: Message) -> None:
        self.messages = messages


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
        len(trace_id) == 16 and len(span_id) == 8 and trace_id != _ZERO16 and span_id != _ZERO8
        and (not parent or (len(parent) == 8 and parent != _ZERO8))
        and 0 < s.start_time_unix_nano <= s.end_time_unix_nano <= MAX_UNIX_NANO
        and not s.events and not s.links
    )


def _plain_log(r: Message) -> bool:
    trace_id, span_id = r.trace_id, r.span_id
    return (
        (not trace_id or (len(trace_id) == 16 and trace_id != _ZERO16))
        and (not span_id or (len(span_id) == 8 and span_id != _ZERO8))
        and r.time_unix_nano <= MAX_UNIX_NANO and r.observed_time_unix_nano <= MAX_UNIX_NANO
    )


def _plain_point(p: Message) -> bool:
    return p.time_unix_nano <= MAX_UNIX_NANO and p.start_time_unix_nano <= MAX_UNIX_NANO


_PLAINLY_VALID = {Signal.traces: _plain_span, Signal.logs: _plain_log, Signal.metrics: _plain_point}


def _problem(signal: Signal, item: Message) -> str | None:
    if signal is Signal.traces:
        return (
            _id_problem("trace_id", item.trace_id, 16, optional=False)
            or _id_problem("span_id", item.span_id, 8, optional=False)
            or _id_problem("parent_span_id", item.parent_span_id, 8, optional=True)
            or ("start_time_unix_nano is missing" if item.start_time_unix_nano == 0 else None)
            or _time_problem("end_time_unix_nano", item.end_time_unix_nano)
            or ("end_time_unix_nano is before start_time_unix_nano"
                if item.end_time_unix_nano < item.start_time_unix_nano else None)
            or next((p for e in item.events if (p := _time_problem("event time", e.time_unix_nano))), None)
            or next((p for link in item.links if (p := _id_problem("link trace_id", link.trace_id, 16, False)
                                                   or _id_problem("link span_id", link.span_id, 8, False))), None)
        )
    if signal is Signal.logs:
        return (
            _id_problem("trace_id", item.trace_id, 16, optional=True)
            or _id_problem("span_id", item.span_id, 8, optional=True)
            or _time_problem("time_unix_nano", item.time_unix_nano)
            or _time_problem("observed_time_unix_nano", item.observed_time_unix_nano)
        )
    return _time_problem("time_unix_nano", item.time_unix_nano) or _time_problem(
        "start_time_unix_nano", item.start_time_unix_nano
    )
