"""SQL that renders an OTLP AnyValue as the exporter's text form (pdata's AsString).

The engine reads each attribute value (and log body) as its raw protobuf bytes (harborlight/commit/otlp_decode.proto)
and renders it from its field tag (the first byte): 0x0A string, 0x10 bool, 0x18 int (varint),
0x21 double (fixed64), 0x3A bytes (base64); no member, an empty value, is ''. Arrays and maps never
reach it: harborlight/commit/structured_values.py has replaced each by a string value holding its stored text. One
column per value and one small renderer keep query planning cheap, which is most of the cost of an
INSERT of a few thousand spans.
"""


def _ecmascript(number: str) -> str:
    # pdata writes large doubles as ECMAScript does ("1e+21"), and NaN, Infinity, -Infinity; the engine
    # writes "1e21", "nan", "inf", "-inf".
    return (
        f"multiIf(endsWith({number}, 'nan'), 'NaN', endsWith({number}, 'inf'), "
        f"if(startsWith({number}, '-'), '-Infinity', 'Infinity'), replaceRegexpOne({number}, 'e([0-9])', 'e+\\\\1'))"
    )


def scalar_value_text(b: str) -> str:
    """The exporter's text for the raw AnyValue `b`: its only member fills the message after the tag (and,
    for strings and bytes, a length)."""
    tag = f"reinterpretAsUInt8(substring({b}, 1, 1))"
    length_size = f"if(length({b}) < 130, 1, if(length({b}) < 16387, 2, if(length({b}) < 2097156, 3, 4)))"
    payload = f"substring({b}, 2 + {length_size})"
    varint = (
        f"reinterpretAsInt64(arraySum(arrayMap(i -> bitShiftLeft(toUInt64(bitAnd("
        f"reinterpretAsUInt8(substring({b}, 2 + i, 1)), 127)), 7 * i), range(greatest(length({b}), 1) - 1))))"
    )
    return (
        f"multiIf({tag} = 10, {payload}, {tag} = 24, toString({varint}), "
        f"{tag} = 33, {_ecmascript(f'toString(reinterpretAsFloat64(substring({b}, 2, 8)))')}, "
        f"{tag} = 16, if(reinterpretAsUInt8(substring({b}, 2, 1)) = 0, 'false', 'true'), "
        f"{tag} = 58, base64Encode({payload}), '')"
    )


def attribute_maps(lists: str) -> str:
    """Map(String, String) for each attribute list in the array `lists`, with one renderer to plan."""
    return f"arrayMap(a -> mapFromArrays(a.key, arrayMap(v -> {scalar_value_text('v')}, a.value)), {lists})"
