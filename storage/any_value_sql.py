"""SQL that renders an OTLP AnyValue as the exporter's text form (pdata's AsString).

The engine reads AnyValue's scalar members straight into Nullable(String) columns (ints in
decimal, doubles in shortest form, bools as true/false): the member that was sent is the one that is
not NULL. The elements of an array and the values of a kvlist are read as their raw protobuf bytes
and rendered from their field tag (the first byte): 0x0A string, 0x10 bool, 0x18 int (varint),
0x21 double (fixed64), 0x3A bytes. Arrays and maps become JSON; a value nested two levels deep
(an array inside an array) is JSON null. Small row types and few lambdas keep query planning cheap,
which is most of the cost of an INSERT of a few thousand spans.

The scalar decoding (otlp_decode_scalar.proto, for requests without array or kvlist values) reads
every AnyValue as raw bytes and renders it from its tag the same way: one column per value parses
and plans in about half the time.
"""

from collections.abc import Callable

ANY_VALUE_TYPE = (
    "Tuple(string_value Nullable(String), bool_value Nullable(String), int_value Nullable(String), "
    "double_value Nullable(String), bytes_value Nullable(String), array_value Tuple(values Array(String)), "
    "kvlist_value Tuple(values Array(Tuple(key String, value String))))"
)


def _ecmascript(number: str) -> str:
    # pdata writes large doubles as ECMAScript does ("1e+21"), and NaN, Infinity, -Infinity; the engine
    # writes "1e21", "nan", "inf", "-inf".
    return (f"multiIf(endsWith({number}, 'nan'), 'NaN', endsWith({number}, 'inf'), "
            f"if(startsWith({number}, '-'), '-Infinity', 'Infinity'), replaceRegexpOne({number}, 'e([0-9])', 'e+\\\\1'))")


def _raw_value(b: str, as_json: bool) -> str:
    """A raw scalar AnyValue `b` as the exporter's text, or as JSON (an array element or a kvlist
    value): its only member fills the message after the tag (and, for strings and bytes, a length)."""
    tag = f"reinterpretAsUInt8(substring({b}, 1, 1))"
    length_size = f"if(length({b}) < 130, 1, if(length({b}) < 16387, 2, if(length({b}) < 2097156, 3, 4)))"
    payload = f"substring({b}, 2 + {length_size})"
    varint = (
        f"reinterpretAsInt64(arraySum(arrayMap(i -> bitShiftLeft(toUInt64(bitAnd("
        f"reinterpretAsUInt8(substring({b}, 2 + i, 1)), 127)), 7 * i), range(greatest(length({b}), 1) - 1))))"
    )

    def text(expr: str) -> str:
        return f"toJSONString({expr})" if as_json else expr

    unset = "'null'" if as_json else "''"
    return (
        f"multiIf({tag} = 10, {text(payload)}, {tag} = 24, toString({varint}), "
        f"{tag} = 33, {_ecmascript(f'toString(reinterpretAsFloat64(substring({b}, 2, 8)))')}, "
        f"{tag} = 16, if(reinterpretAsUInt8(substring({b}, 2, 1)) = 0, 'false', 'true'), "
        f"{tag} = 58, {text(f'base64Encode({payload})')}, {unset})"
    )


def any_value_text(v: str) -> str:
    """The text the exporter stores for the AnyValue `v` (of ANY_VALUE_TYPE)."""
    element, value = _raw_value("x", as_json=True), _raw_value("p.value", as_json=True)
    array = f"concat('[', arrayStringConcat(arrayMap(x -> {element}, {v}.array_value.values), ','), ']')"
    kvlist = (
        f"concat('{{', arrayStringConcat(arrayMap(p -> concat(toJSONString(p.key), ':', {value}), "
        f"{v}.kvlist_value.values), ','), '}}')"
    )
    return (
        f"coalesce({v}.string_value, {v}.int_value, {_ecmascript(f'{v}.double_value')}, {v}.bool_value, "
        f"base64Encode({v}.bytes_value), if(notEmpty({v}.array_value.values), {array}, "
        f"if(notEmpty({v}.kvlist_value.values), {kvlist}, '')))"
    )


def scalar_value_text(b: str) -> str:
    """The exporter's text for a raw AnyValue `b` known to be a scalar (otlp_decode_scalar.proto)."""
    return _raw_value(b, as_json=False)


def attribute_maps(lists: str, value_text: Callable[[str], str] = any_value_text) -> str:
    """Map(String, String) for each attribute list in the array `lists`, with one renderer to plan."""
    return f"arrayMap(a -> mapFromArrays(a.key, arrayMap(v -> {value_text('v')}, a.value)), {lists})"
