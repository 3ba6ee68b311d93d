"""ClickHouse errors on the HTTP wire: the error codes the interface raises itself, the HTTP status ClickHouse
gives each code (exceptionCodeToHTTPStatus in src/Server/HTTP/exceptionCodeToHTTPStatus.cpp; every other
code is 500), and the text ClickHouse writes ("Code: N. DB::Exception: message. (NAME) (version V)")."""

from dataclasses import dataclass, field

# ClickHouse's error codes (stable numbers; tests check each against the engine's errorCodeToName).
CODES = {
    "CANNOT_PARSE_INPUT_ASSERTION_FAILED": 27,
    "BAD_ARGUMENTS": 36,
    "NOT_IMPLEMENTED": 48,
    "SYNTAX_ERROR": 62,
    "UNKNOWN_SETTING": 115,
    "TIMEOUT_EXCEEDED": 159,
    "READONLY": 164,
    "QUERY_IS_TOO_LARGE": 229,
    "QUERY_IS_PROHIBITED": 392,
    "QUERY_WAS_CANCELLED": 394,
    "SETTING_CONSTRAINT_VIOLATION": 452,
    "ACCESS_DENIED": 497,
    "AUTHENTICATION_FAILED": 516,
    "ZLIB_INFLATE_FAILED": 354,
    "TOO_DEEP_RECURSION": 306,
    "BAD_QUERY_PARAMETER": 457,
}
NAMES = {code: name for name, code in CODES.items()}

_STATUS_BY_NAMES = {
    401: {"REQUIRED_PASSWORD": 194},
    403: {
        "UNKNOWN_USER": 192,
        "WRONG_PASSWORD": 193,
        "AUTHENTICATION_FAILED": 516,
        "SET_NON_GRANTED_ROLE": 512,
        "ACCESS_DENIED": 497,
    },
    400: {
        "BAD_ARGUMENTS": 36,
        "CANNOT_COMPILE_REGEXP": 427,
        "CANNOT_PARSE_TEXT": 6,
        "CANNOT_PARSE_ESCAPE_SEQUENCE": 25,
        "CANNOT_PARSE_QUOTED_STRING": 26,
        "CANNOT_PARSE_DATE": 38,
        "CANNOT_PARSE_DATETIME": 41,
        "CANNOT_PARSE_NUMBER": 72,
        "CANNOT_PARSE_DOMAIN_VALUE_FROM_STRING": 441,
        "CANNOT_PARSE_IPV4": 675,
        "CANNOT_PARSE_IPV6": 676,
        "CANNOT_PARSE_INPUT_ASSERTION_FAILED": 27,
        "CANNOT_PARSE_UUID": 376,
        "DUPLICATE_COLUMN": 15,
        "ILLEGAL_COLUMN": 44,
        "UNKNOWN_ELEMENT_IN_AST": 37,
        "UNKNOWN_TYPE_OF_AST_NODE": 123,
        "THERE_IS_NO_COLUMN": 8,
        "TOO_DEEP_AST": 167,
        "TOO_BIG_AST": 168,
        "UNEXPECTED_AST_STRUCTURE": 223,
        "SYNTAX_ERROR": 62,
        "INCORRECT_DATA": 117,
        "TYPE_MISMATCH": 53,
        "VALUE_IS_OUT_OF_RANGE_OF_DATA_TYPE": 321,
    },
    404: {
        "UNKNOWN_TABLE": 60,
        "UNKNOWN_FUNCTION": 46,
        "UNKNOWN_IDENTIFIER": 47,
        "UNKNOWN_TYPE": 50,
        "UNKNOWN_STORAGE": 56,
        "UNKNOWN_DATABASE": 81,
        "UNKNOWN_SETTING": 115,
        "UNKNOWN_DIRECTION_OF_SORTING": 152,
        "UNKNOWN_AGGREGATE_FUNCTION": 63,
        "UNKNOWN_FORMAT": 73,
        "UNKNOWN_DATABASE_ENGINE": 336,
        "UNKNOWN_TYPE_OF_QUERY": 78,
        "UNKNOWN_ROLE": 511,
    },
    413: {"QUERY_IS_TOO_LARGE": 229},
    501: {"NOT_IMPLEMENTED": 48},
    503: {"SOCKET_TIMEOUT": 209, "CANNOT_OPEN_FILE": 76, "CANNOT_SCHEDULE_TASK": 439},
    411: {"HTTP_LENGTH_REQUIRED": 381},
    408: {"TIMEOUT_EXCEEDED": 159},
    415: {"UNSUPPORTED_MEDIA_TYPE": 779},
}
# A malformed request is the client's error, answered 400 with the engine's code, where ClickHouse 26.9 leaves these
# at 500: a body that is not its Content-Encoding, a statement nested too deep to parse, a query parameter that is
# not of its type.
MALFORMED_REQUEST = ("ZLIB_INFLATE_FAILED", "TOO_DEEP_RECURSION", "BAD_QUERY_PARAMETER")
STATUS = {code: status for status, names in _STATUS_BY_NAMES.items() for code in names.values()}
STATUS |= {CODES[name]: 400 for name in MALFORMED_REQUEST}


class Refused(Exception):
    """A request the interface answers with a ClickHouse error of its own."""

    def __init__(self, code: int, message: str) -> None:
        super().__init__(message)
        self.code = code


@dataclass
class Reply:
    status: int
    body: bytes
    headers: dict[str, str] = field(default_factory=dict)


def error_reply(code: int, message: str, version: str = "") -> Reply:
    """ClickHouse's error answer; a message from the engine (already "Code: N. ...") is kept as it is."""
    if not message.startswith("Code: "):
        name = NAMES.get(code, "")
        message = f"Code: {code}. DB::Exception: {message}. ({name})" + (f" (version {version})" if version else "")
    return Reply(
        STATUS.get(code, 500),
        (message.rstrip("\n") + "\n").encode(),
        {"X-ClickHouse-Exception-Code": str(code), "Content-Type": "text/plain; charset=UTF-8"},
    )
