"""The error codes and HTTP statuses the interface answers with are ClickHouse's own."""

from harborlight.sqlport.clickhouse_errors import _STATUS_BY_NAMES, CODES, STATUS, error_reply


def test_every_code_is_the_engines_code_of_that_name(server):
    named = {**CODES, **{name: code for names in _STATUS_BY_NAMES.values() for name, code in names.items()}}
    codes = sorted(set(named.values()) | set(STATUS))
    names = dict(
        server.sql(
            f"SELECT number, errorCodeToName(number) FROM numbers({max(codes) + 1}) WHERE number IN {tuple(codes)}"
        )
    )
    assert {name: code for name, code in named.items() if names.get(code) != name} == {}


def test_client_errors_are_4xx_and_the_rest_500_as_clickhouse_maps_them():
    assert error_reply(CODES["SYNTAX_ERROR"], "x").status == 400
    assert error_reply(60, "Code: 60. DB::Exception: Unknown table").status == 404  # UNKNOWN_TABLE
    assert error_reply(CODES["AUTHENTICATION_FAILED"], "x").status == 403
    assert error_reply(CODES["TIMEOUT_EXCEEDED"], "x").status == 408
    assert error_reply(CODES["QUERY_IS_TOO_LARGE"], "x").status == 413
    assert error_reply(CODES["READONLY"], "x").status == 500
    reply = error_reply(CODES["ACCESS_DENIED"], "no", "26.9.2.1")
    assert reply.body == b"Code: 497. DB::Exception: no. (ACCESS_DENIED) (version 26.9.2.1)\n"
    assert reply.headers["X-ClickHouse-Exception-Code"] == "497"
