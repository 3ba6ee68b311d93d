"""Copies of the OTLP message classes that read `string` fields as `bytes`.

The strict classes refuse a whole request when one string holds invalid UTF-8; these read it so the
offending items can be dropped and counted, one by one.
"""

from collections.abc import Iterable, Iterator
from functools import cache

from google.protobuf import descriptor_pb2, descriptor_pool, message_factory
from google.protobuf.descriptor import FieldDescriptor, FileDescriptor
from google.protobuf.message import Message

_POOL = descriptor_pool.DescriptorPool()


def _add_file(file: FileDescriptor, seen: set[str]) -> None:
    if file.name in seen:
        return
    seen.add(file.name)
    for dep in file.dependencies:
        _add_file(dep, seen)
    proto = descriptor_pb2.FileDescriptorProto()
    file.CopyToProto(proto)
    for message in _walk(proto.message_type):
        for f in message.field:
            if f.type == descriptor_pb2.FieldDescriptorProto.TYPE_STRING:
                f.type = descriptor_pb2.FieldDescriptorProto.TYPE_BYTES
    _POOL.Add(proto)


def _walk(messages: Iterable[descriptor_pb2.DescriptorProto]) -> Iterator[descriptor_pb2.DescriptorProto]:
    for m in messages:
        yield m
        yield from _walk(m.nested_type)


_SEEN: set[str] = set()
_LENIENT: dict[str, type[Message]] = {}  # by the strict class's full name, built once


def lenient_class(strict: type[Message]) -> type[Message]:
    name = strict.DESCRIPTOR.full_name
    lenient = _LENIENT.get(name)
    if lenient is None:
        _add_file(strict.DESCRIPTOR.file, _SEEN)
        lenient = _LENIENT[name] = message_factory.GetMessageClass(_POOL.FindMessageTypeByName(name))
    return lenient


def first_invalid_utf8(
    message: Message | tuple[Message, ...], skip: frozenset[str] | set[str] = frozenset()
) -> str | None:
    """The first string field (read as bytes) that is not UTF-8, as a reason; None when all are."""
    if isinstance(message, tuple):  # the messages enclosing a list of items
        return next((p for m in message if (p := first_invalid_utf8(m, skip))), None)
    strict_fields = _string_fields(message.DESCRIPTOR.full_name)
    for fd, value in message.ListFields():
        if fd.name in skip:
            continue
        if fd.type == FieldDescriptor.TYPE_MESSAGE:
            values = value if fd.is_repeated else [value]
            for v in values:
                if problem := first_invalid_utf8(v, skip):
                    return problem
        elif fd.name in strict_fields:
            values = value if fd.is_repeated else [value]
            for v in values:
                try:
                    v.decode("utf-8")
                except UnicodeDecodeError:
                    return f"{fd.name} is not valid UTF-8"
    return None


@cache
def _string_fields(full_name: str) -> frozenset[str]:
    from google.protobuf import symbol_database

    strict = symbol_database.Default().pool.FindMessageTypeByName(full_name)
    return frozenset(f.name for f in strict.fields if f.type == FieldDescriptor.TYPE_STRING)
