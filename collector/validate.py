"""Per-item checks on an export request: bad items are removed and counted, the valid rest is kept.

Pure: bytes in, a Checked result out. The common case (every item valid) keeps the original bytes,
so the engine decodes exactly what the client sent.
"""

from collections.abc import Iterator
from dataclasses import dataclass, field

from google.protobuf.message import DecodeError, Message

from collector.errors import InvalidRequest
from collector.lenient import lenient_class, first_invalid_utf8
from collector.signals import SignalSpec
from storage import Signal

MAX_UNIX_NANO = 2**63 - 1  # DateTime64(9) ends in 2262; later stamps cannot be stored
MAX_REASONS = 5


@dataclass
class Checked:
    payload: bytes
    accepted: int
    rejected: int = 0
    reasons: list[str] = field(default_factory=list)

    def message(self, item: str) -> str:
        if not self.rejected:
            return ""
        return f"rejected {self.rejected} {item}(s): " + "; ".join(self.reasons)


def check_request(spec: SignalSpec, body: bytes) -> Checked:
    try:
        request = spec.request.FromString(body)
        strict = True
    except DecodeError:
        # Invalid UTF-8 in a string field fails the strict parse of the whole request; the lenient
        # classes read strings as bytes so the bad items can be found and dropped one by one.
        try:
            request = lenient_class(spec.request).FromString(body)
        except DecodeError as exc:
            raise InvalidRequest(f"not a valid OTLP {spec.request.DESCRIPTOR.name}: {exc}") from exc
        strict = False
    accepted = rejected = 0
    reasons: list[str] = []
    for container, items in _item_lists(spec.signal, request):
        container_problem = None if strict else first_invalid_utf8(container, skip=_ITEM_FIELDS)
        bad: list[int] = []
        plainly_valid = _PLAINLY_VALID[spec.signal]
        for index, item in enumerate(items):
            problem = container_problem or (None if plainly_valid(item) else _problem(spec.signal, item))
            if not strict:
                problem = problem or first_invalid_utf8(item)
            if problem:
                bad.append(index)
                if len(reasons) < MAX_REASONS and problem not in reasons:
                    reasons.append(problem)
        for index in reversed(bad):
            del items[index]
        rejected += len(bad)
        accepted += len(items)
    payload = body if rejected == 0 else request.SerializeToString()
    return Checked(payload=payload, accepted=accepted, rejected=rejected, reasons=reasons)


# The repeated fields that hold items; a container's own strings are checked without them.
_ITEM_FIELDS = {"scope_spans", "spans", "scope_logs", "log_records", "scope_metrics", "metrics", "data_points"}


def _item_lists(signal: Signal, request: Message) -> Iterator[tuple[Message, Message]]:
    """Yields (scope block, repeated items) pairs; a scope block carries its resource's strings too."""
    if signal is Signal.traces:
        for rs in request.resource_spans:
            for ss in rs.scope_spans:
                yield _Pair(rs, ss), ss.spans
    elif signal is Signal.logs:
        for rl in request.resource_logs:
            for sl in rl.scope_logs:
                yield _Pair(rl, sl), sl.log_records
    else:
        for rm in request.resource_metrics:
            for sm in rm.scope_metrics:
                for metric in sm.metrics:
                    kind = metric.WhichOneof("data")
                    if kind is not None:
                        yield _Pair(rm, sm, metric), getattr(metric, kind).data_points


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
