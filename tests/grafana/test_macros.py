"""The test's macro expansion produces what the ClickHouse data source sends (pkg/macros/macros.go)."""

from datetime import UTC, datetime

import pytest

from tests.grafana.macros import TimeRange, expand, replace_variables

RANGE = TimeRange(datetime(2025, 12, 1, tzinfo=UTC), datetime(2025, 12, 1, 1, tzinfo=UTC), interval_s=30)


def test_time_macros_expand_to_utc_seconds_and_milliseconds():
    assert expand("WHERE $__timeFilter(Timestamp)", {}, RANGE) == (
        "WHERE Timestamp >= toDateTime(1764547200) AND Timestamp <= toDateTime(1764550800)"
    )
    assert expand("$__fromTime, $__toTime", {}, RANGE) == "toDateTime(1764547200), toDateTime(1764550800)"
    assert expand("$__fromTime_ms", {}, RANGE) == "fromUnixTimestamp64Milli(1764547200000)"
    assert expand("$__timeInterval(ts) AS t, n / $__interval_s", {}, RANGE) == (
        "toStartOfInterval(toDateTime(ts), INTERVAL 30 second) AS t, n / 30"
    )


def test_an_unknown_macro_is_an_error():
    with pytest.raises(ValueError, match="unknown macro"):
        expand("$__timeGroupBy(x)", {}, RANGE)


def test_variables_use_the_data_sources_format_and_grafanas_sqlstring():
    variables = {"job": "o'brien", "jobs": ["a", "b"]}
    assert replace_variables("${job:sqlstring} $jobs ${jobs:sqlstring} $job", variables) == (
        "'o''brien' 'a','b' 'a','b' o'brien"
    )
    assert replace_variables("$unknown $__interval_s", variables) == "$unknown $__interval_s"
