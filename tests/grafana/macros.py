"""What Grafana and its ClickHouse data source do to a panel's SQL before ClickHouse sees it.

1. Grafana's template service replaces dashboard variables, using the data source's format function
   (grafana/clickhouse-datasource, src/data/CHDatasource.ts `format`): a single value as it is, several
   values as `'a','b'`. `${name:sqlstring}` is Grafana's own format: each value quoted with `'`, a `'`
   inside doubled, comma-separated.
2. The plugin's backend expands its macros (pkg/macros/macros.go) for the query's time range and
   interval: `$__timeFilter(c)` → `c >= toDateTime(from) AND c <= toDateTime(to)` (UNIX seconds),
   `$__fromTime` / `$__toTime` → `toDateTime(s)`, `$__fromTime_ms` / `$__toTime_ms` →
   `fromUnixTimestamp64Milli(ms)`, `$__timeFilter_ms(c)`, `$__timeInterval(c)` →
   `toStartOfInterval(toDateTime(c), INTERVAL n second)`, `$__interval_s` → n (at least 1).
"""

import re
from dataclasses import dataclass
from datetime import datetime

Value = str | list[str]

_VARIABLE = re.compile(r"\$\{(\w+)(?::(\w+))?\}|\$([A-Za-z]\w*)")
_MACRO = re.compile(r"\$__(\w+)(?:\(([^()]*)\))?")


@dataclass(frozen=True)
class TimeRange:
    start: datetime
    end: datetime
    interval_s: int = 60


def _sqlstring(value: Value) -> str:
    values = value if isinstance(value, list) else [value]
    return ",".join("'" + v.replace("'", "''") + "'" for v in values)


def _plugin_format(value: Value) -> str:
    return "'" + "','".join(value) + "'" if isinstance(value, list) else value


def replace_variables(sql: str, variables: dict[str, Value]) -> str:
    """Grafana's template service: unknown names are left as they are (as Grafana does)."""

    def one(match: re.Match) -> str:
        name, fmt = (match.group(1), match.group(2)) if match.group(1) else (match.group(3), None)
        if name not in variables:
            return match.group(0)
        if fmt == "sqlstring":
            return _sqlstring(variables[name])
        if fmt is not None:
            raise ValueError(f"variable format {fmt!r} is not one the dashboards use")
        return _plugin_format(variables[name])

    return _VARIABLE.sub(one, sql)


def expand_macros(sql: str, time_range: TimeRange) -> str:
    """The plugin's backend macros; an unknown macro is an error, as it is in the plugin."""
    start, end = time_range.start, time_range.end
    seconds = max(time_range.interval_s, 1)

    def one(match: re.Match) -> str:
        name, args = match.group(1), [a.strip() for a in (match.group(2) or "").split(",") if a.strip()]

        def column() -> str:
            if len(args) != 1:
                raise ValueError(f"$__{name} expects 1 argument, got {len(args)}")
            return args[0]

        expanders = {
            "fromTime": lambda: f"toDateTime({int(start.timestamp())})",
            "toTime": lambda: f"toDateTime({int(end.timestamp())})",
            "fromTime_ms": lambda: f"fromUnixTimestamp64Milli({int(start.timestamp() * 1000)})",
            "toTime_ms": lambda: f"fromUnixTimestamp64Milli({int(end.timestamp() * 1000)})",
            "timeFilter": lambda: (
                f"{column()} >= toDateTime({int(start.timestamp())}) AND "
                f"{column()} <= toDateTime({int(end.timestamp())})"
            ),
            "timeFilter_ms": lambda: (
                f"{column()} >= fromUnixTimestamp64Milli({int(start.timestamp() * 1000)}) AND "
                f"{column()} <= fromUnixTimestamp64Milli({int(end.timestamp() * 1000)})"
            ),
            "timeInterval": lambda: f"toStartOfInterval(toDateTime({column()}), INTERVAL {seconds} second)",
            "interval_s": lambda: str(seconds),
        }
        if name not in expanders:
            raise ValueError(f"unknown macro $__{name}")
        return expanders[name]()

    return _MACRO.sub(one, sql)


def expand(sql: str, variables: dict[str, Value], time_range: TimeRange) -> str:
    """Variables first (Grafana's frontend), then macros (the plugin's backend)."""
    return expand_macros(replace_variables(sql, variables), time_range)
