"""Compiles the agent convention table (harborlight/agent/rules.py) a second way: to vectorized Arrow compute
over a batch of raw rows, giving the agent_events rows the materialized views
(harborlight/agent/compile.py) give for the same rows, as an Arrow table.

The rules are read from the table, never restated: kind rules are tested in order (the first that holds
wins), each fact takes its first alias whose value is valid for its type, derived rows come from the same
carriers. What this module adds is how a raw table presents a record (its name, its attributes, its @-values:
the Arrow side of harborlight/agent/sources.py) and the engine's functions the rules' SQL calls (their
edge cases: harborlight/agent/arrow_json.py). A When test or @-value this module does not know fails
`classify` with its name, so a new rule type cannot drift silently; tests/agent/test_arrow_drift.py runs
both compilations over the recorded fixtures and requires identical agent events.

Vectorized: names, attribute look-ups (one dictionary encoding of a batch's keys, then integer compares),
kind rules, typed values, categories. Per row, in Python, only what Arrow has no function for and few rows
carry: JSON (tool arguments, log bodies, GenAI messages), span events, regex extraction with groups.
A log record's EventId is ClickHouse's sipHash64 of its columns: the raw batch brings it (LOG_EVENT_ID,
computed by the engine as it decodes: harborlight/agent/sources.py log_event_id_sql).
"""

import re
from collections.abc import Callable
from dataclasses import fields
from functools import cache
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from harborlight.agent import arrow_json as js
from harborlight.agent import rules
from harborlight.agent.rule_types import Alias, Derived, Fact, FactType, FlatMessages, KindRule, Source, When
from harborlight.agent.sources import CONTEXTS, INSTANCE_KEY, log_event_id_sql
from harborlight.agent.sql_parts import _FALSE, _TRUE

LOG_EVENT_ID = "_event_id"  # the column of a log batch holding each record's EventId (sources.log_event_id_sql)

BODY, LAST_TEXT_ROLE = "@body:", "@last_text_role:"
_HANDLED_WHEN = {
    "source",
    "names",
    "prefixes",
    "suffixes",
    "attrs",
    "has",
    "ends",
    "scope",
    "service_prefix",
    "not_service_prefix",
    "min_value",
    "correlated",
    "root",
}
_DOTTED_BODY = r"^[a-z_]+\.[a-z_.]+$"  # a body that is an event name (sql_parts.event_name_sql)
_PATH_END = '([^\\n"\\\\]+)'  # sql_parts._PATH_END


class UnsupportedRule(NotImplementedError):
    """A rule type the Arrow compilation has no counterpart for yet."""


_CONTEXT = {ctx.source: ctx for ctx in CONTEXTS}
_STR = pa.string()


def _const(n: int, value: str = "") -> pa.Array:
    return pa.repeat(pa.scalar(value, _STR), n)


def _np(mask: Any) -> np.ndarray:
    """A boolean Arrow array (nulls false) as numpy."""
    if isinstance(mask, np.ndarray):
        return mask
    return np.asarray(pc.fill_null(mask, False).to_numpy(zero_copy_only=False), dtype=bool)


class _Map:
    """One map per row, flattened: each entry's row, key (dictionary-encoded once) and value."""

    def __init__(self, n: int, rows: np.ndarray, keys: pa.Array, values: pa.Array) -> None:
        self.n, self.rows, self.values = n, rows, values
        self.codes, self.code = np.zeros(0, dtype=np.int64), {}
        if len(keys):
            encoded = pc.dictionary_encode(keys)
            self.codes = np.asarray(encoded.indices.to_numpy(zero_copy_only=False), dtype=np.int64)
            self.code = {k: i for i, k in enumerate(encoded.dictionary.to_pylist())}
        self._cache: dict[str, tuple[np.ndarray, pa.Array]] = {}
        self._by_code = np.argsort(self.codes, kind="stable")
        self._bounds = np.searchsorted(self.codes[self._by_code], np.arange(len(self.code) + 1))
        self._padded = pa.concat_arrays([values, pa.array([""], type=_STR)])

    @classmethod
    def of(cls, column: Any, non_empty: bool) -> "_Map":
        column = column.combine_chunks() if isinstance(column, pa.ChunkedArray) else column
        rows, keys, values = _entries(column)
        if non_empty:
            keep = _np(pc.not_equal(values, ""))
            rows, keys, values = rows[keep], keys.filter(pa.array(keep)), values.filter(pa.array(keep))
        return cls(len(column), rows, keys, values)

    def _first(self, key: str) -> tuple[np.ndarray, pa.Array]:
        if key not in self._cache:
            code = self.code.get(key)
            present = np.zeros(self.n, dtype=bool)
            if code is None:
                self._cache[key] = (present, _const(self.n))
            else:
                idx = self._by_code[self._bounds[code] : self._bounds[code + 1]]
                rows = self.rows[idx]
                first = np.ones(len(idx), dtype=bool)
                first[1:] = rows[1:] != rows[:-1]  # entries are in row order: a row's first entry of the key
                pos = np.full(self.n, len(self.values), dtype=np.int64)
                pos[rows[first]] = idx[first]
                present[rows] = True
                self._cache[key] = (present, self._padded.take(pa.array(pos)))
        return self._cache[key]

    def value(self, key: str) -> pa.Array:
        return self._first(key)[1]

    def holds(self, key: str) -> bool:
        """Whether any row has the key (a look-up of a key no row has is '' everywhere)."""
        return key in self.code

    def has(self, key: str) -> np.ndarray:
        return self._first(key)[0]

    def row_keys(self, rows: np.ndarray) -> dict[int, list[str]]:
        """The keys of each of `rows`, in order."""
        names = list(self.code)
        wanted = np.isin(self.rows, rows)
        out: dict[int, list[str]] = {int(r): [] for r in rows}
        for r, c in zip(self.rows[wanted].tolist(), self.codes[wanted].tolist(), strict=True):
            out[r].append(names[c])
        return out


def _entries(column: pa.Array) -> tuple[np.ndarray, pa.Array, pa.Array]:
    """(row, key, value) of every entry of a map column, in order."""
    as_list = column.cast(pa.list_(pa.struct([column.type.key_field, column.type.item_field])))
    flat = pc.list_flatten(as_list)
    rows = np.asarray(pc.list_parent_indices(as_list).to_numpy(zero_copy_only=False), dtype=np.int64)
    return rows, flat.field(0), flat.field(1)


def _int_valid(values: pa.Array) -> np.ndarray:
    """toInt64OrNull is not NULL: an optional sign and digits, within Int64."""
    ok = _np(pc.match_substring_regex(values, r"^[+-]?[0-9]+$"))
    long = _np(pc.greater(pc.utf8_length(values), 18))
    for i in np.flatnonzero(ok & long):
        ok[i] = -(2**63) <= int(values[i].as_py()) < 2**63
    return ok


def _int_values(values: pa.Array, valid: np.ndarray) -> np.ndarray:
    out = np.zeros(len(values), dtype=np.int64)
    if valid.any():
        digits = pc.replace_substring_regex(values.filter(pa.array(valid)), r"^\+", "")
        out[valid] = pc.cast(digits, pa.int64()).to_numpy()
    return out


_FLOAT = r"^[+-]?(?:[0-9]+\.?[0-9]*(?:[eE][+-]?[0-9]+)?|\.[0-9]+(?:[eE][+-]?[0-9]+)?|(?i:inf|infinity|nan))$"


def _float_valid(values: pa.Array) -> np.ndarray:
    return _np(pc.match_substring_regex(values, _FLOAT))


def _float_values(values: pa.Array, valid: np.ndarray) -> np.ndarray:
    out = np.zeros(len(values), dtype=np.float64)
    for i in np.flatnonzero(valid):
        out[i] = float(values[i].as_py())
    return out


def _status_valid(values: pa.Array) -> np.ndarray:
    """toUInt16OrNull is not NULL: an optional plus and digits, at most 65535."""
    ok = _np(pc.match_substring_regex(values, r"^\+?[0-9]+$"))
    for i in np.flatnonzero(ok & _np(pc.greater(pc.utf8_length(values), 4))):
        ok[i] = int(values[i].as_py()) <= 65535
    return ok


def _valid(kind: FactType, values: pa.Array) -> np.ndarray:
    if kind == "string":
        return _np(pc.not_equal(values, ""))
    if kind == "int":
        return _int_valid(values)
    if kind == "float":
        return _float_valid(values)
    if kind == "status":
        return _status_valid(values)
    if kind == "bool":
        return _np(pc.is_in(values, pa.array(_TRUE + _FALSE)))
    raise UnsupportedRule(f"fact type {kind}")


class Batch:
    """A batch of one raw table's rows as the rules read them (the Arrow side of sources.Context)."""

    def __init__(self, table: pa.Table, source: Source) -> None:
        self.source, self.ctx, self.t = source, _CONTEXT[source], table
        self.n = table.num_rows
        self._values: dict[str, pa.Array] = {}
        self._events: dict[int, list[tuple[str, dict[str, str]]]] | None = None
        self.r = _Map.of(table.column("ResourceAttributes"), non_empty=False)
        self.scope = self.col("ScopeName")
        self.service = self.col("ServiceName")
        if source == "span":
            self.a = self._span_attributes()
            self.name = self.col("SpanName")
        else:
            self.a = _Map.of(table.column("LogAttributes"), non_empty=True)
            self.name = self._event_name()
        self.facts: dict[str, tuple[pa.Array, pa.Array]] = {}  # fact -> (typed value, provenance)
        self.kind: pa.Array | None = None  # each row's kind, once the kind rules ran (before the facts)

    def col(self, name: str) -> Any:
        column = self.t.column(name)
        return column.combine_chunks() if isinstance(column, pa.ChunkedArray) else column

    # -- how a record presents itself ------------------------------------------------------------------

    def _span_attributes(self) -> _Map:
        """The non-empty span attributes over those of its events named in rules.SPAN_EVENTS_AS_ATTRIBUTES
        (mapUpdate: the events' keys the span lacks, in order, then the span's)."""
        own = _Map.of(self.t.column("SpanAttributes"), non_empty=True)
        carried = [(r, k, v) for r, evs in self.events().items() for name, m in evs for k, v in m.items()
                   if name in rules.SPAN_EVENTS_AS_ATTRIBUTES]  # fmt: skip
        if not carried:
            return own
        own_keys = self.events_rows_keys(own, {r for r, _, _ in carried})
        carried = [(r, k, v) for r, k, v in carried if k not in own_keys[r]]
        rows = np.concatenate([np.array([r for r, _, _ in carried], dtype=np.int64), own.rows])
        keys = pa.concat_arrays([pa.array([k for _, k, _ in carried], type=_STR), _decoded(own)])
        values = pa.concat_arrays([pa.array([v for _, _, v in carried], type=_STR), own.values])
        order = np.argsort(rows, kind="stable")
        return _Map(self.n, rows[order], keys.take(pa.array(order)), values.take(pa.array(order)))

    @staticmethod
    def events_rows_keys(m: _Map, rows: set[int]) -> dict[int, set[str]]:
        return {r: set(ks) for r, ks in m.row_keys(np.array(sorted(rows), dtype=np.int64)).items()}

    def events(self) -> dict[int, list[tuple[str, dict[str, str]]]]:
        """Each span with events: its events' names and attributes (few spans have any)."""
        if self._events is None:
            self._events = {}
            if self.source == "span":
                names = self.col("Events.Name")
                rows = np.flatnonzero(_np(pc.greater(pc.list_value_length(names), 0)))
                if len(rows):
                    taken = pa.array(rows)
                    attrs = self.col("Events.Attributes").take(taken).to_pylist()
                    for r, ns, ms in zip(rows.tolist(), names.take(taken).to_pylist(), attrs, strict=True):
                        self._events[r] = [(n, dict(m)) for n, m in zip(ns, ms, strict=True)]
        return self._events

    def _event_name(self) -> pa.Array:
        """sql_parts.event_name_sql over a log batch."""
        event_name, body, ev = self.col("EventName"), self.col("Body"), self.a.value("event.name")
        n = self.n
        out = _const(n)
        chosen = np.zeros(n, dtype=bool)

        def take(mask: np.ndarray, value: pa.Array) -> None:
            nonlocal out, chosen
            mask = mask & ~chosen
            if mask.any():
                out = pc.if_else(pa.array(mask), value, out)
                chosen |= mask

        take(
            _np(pc.not_equal(event_name, ""))
            & ~_np(pc.match_substring_regex(event_name, rules.CODE_LOCATION_EVENT_NAME)),
            event_name,
        )
        has_ev = _np(pc.not_equal(ev, ""))
        for scope, head in rules.EVENT_PREFIXES:
            restored = pc.binary_join_element_wise(head, ev, "")
            test = has_ev & ~_np(pc.match_substring(ev, "."))
            test &= _np(pc.starts_with(self.scope, scope)) | _np(pc.equal(body, restored))
            take(test, restored)
        take(has_ev, ev)
        dotted = _np(pc.less(pc.binary_length(body), 100)) & _np(pc.match_substring_regex(body, _DOTTED_BODY))
        take(dotted, body)
        return out

    def root(self) -> np.ndarray | None:
        return _np(pc.equal(self.col("ParentSpanId"), "")) if self.source == "span" else None

    def correlated(self) -> np.ndarray | None:
        return _np(pc.not_equal(self.col("SpanId"), "")) if self.source == "log" else None

    def column_value(self, name: str) -> pa.Array | None:
        """The @-values of Alias keys (sources.Context.columns): '' absent, None when the table has none."""
        if name not in self.ctx.columns:
            raise UnsupportedRule(f"@{name}: no such value in harborlight/agent/sources.py")
        if self.ctx.columns[name] is None:
            return None
        presenter = _COLUMNS.get(name)
        if presenter is None:
            raise UnsupportedRule(f"@{name}: no Arrow presentation (harborlight/agent/arrow_compile.py _COLUMNS)")
        return presenter(self)

    def per_row(self, rows: np.ndarray, values: list[str]) -> pa.Array:
        """A string column: `values` at `rows`, '' elsewhere."""
        index = np.zeros(self.n, dtype=np.int64)
        index[rows] = np.arange(1, len(rows) + 1)
        return pa.array(["", *values], type=_STR).take(pa.array(index))

    # -- the values rules test -------------------------------------------------------------------------

    def value(self, key: str) -> pa.Array | None:
        """compile.value_sql: what an attr/has test reads ('' absent), None when this table has none."""
        if key in self._values:
            return self._values[key]
        value = self._value(key)
        if value is not None:
            self._values[key] = value
        return value

    def _value(self, key: str) -> pa.Array | None:
        if key.startswith(BODY):
            if self.source != "log":
                return None
            path = key.removeprefix(BODY).split(".")
            return self._json_rows(self.col("Body"), lambda text: js.extract_string(text, *path))
        if key.startswith("@") and key[1:] in self.ctx.columns:  # a value of the record (sources.Context.columns)
            return self.column_value(key[1:])
        if key in (rules.USER_EVENT_TURN, rules.CHOICE_EVENT_TEXT):
            return self._event_text(key) if self.source == "span" else None
        if key.startswith(rules.LAST_USER_TEXT):
            return self._last_user_text(_flat(rules.FLAT_INPUT_MESSAGES, key.removeprefix(rules.LAST_USER_TEXT)))
        if key.startswith(rules.OUTPUT_TEXT):
            return self._output_text(_flat(rules.FLAT_OUTPUT_MESSAGES, key.removeprefix(rules.OUTPUT_TEXT)))
        if key.startswith(rules.ANSWER_CALL):
            return self._answer_call(_flat(rules.FLAT_OUTPUT_MESSAGES, key.removeprefix(rules.ANSWER_CALL)))
        last_user_content = getattr(rules, "LAST_USER_CONTENT", None)
        if last_user_content and key.startswith(last_user_content):
            return self._json_rows(self.a.value(key.removeprefix(last_user_content)), js.last_user_content)
        if key.startswith(LAST_TEXT_ROLE):
            return self._json_rows(self.a.value(key.removeprefix(LAST_TEXT_ROLE)), js.last_text_role)
        if key.startswith("@"):
            raise UnsupportedRule(f"value key {key}")
        return self.a.value(key)

    def _json_rows(self, column: pa.Array, read: Callable[[str], str]) -> pa.Array:
        """`read` over the rows whose value is not empty (in Python: few rows carry JSON)."""
        rows = np.flatnonzero(_np(pc.not_equal(column, "")))
        texts = column.take(pa.array(rows)).to_pylist() if len(rows) else []
        return self.per_row(rows, [read(t) for t in texts])

    def _event_text(self, key: str) -> pa.Array:
        rows, values = [], []
        for r, evs in self.events().items():
            names = [n for n, _ in evs]
            if key == rules.CHOICE_EVENT_TEXT:
                last = _last_index(names, ("gen_ai.choice",))
                text = js.content_text(evs[last][1].get("message", "")) if last >= 0 else ""
            else:
                last = _last_index(names, rules.MESSAGE_EVENTS)
                user = last >= 0 and names[last] == "gen_ai.user.message"
                text = js.content_text(evs[last][1].get("content", "")) if user else ""
            rows.append(r)
            values.append(text)
        return self.per_row(np.array(rows, dtype=np.int64), values)

    def _flat_rows(self, pattern: str) -> dict[int, list[str]]:
        """The rows with an attribute key matching `pattern`, and their keys in order."""
        codes = [c for k, c in self.a.code.items() if re.search(pattern, k)]
        rows = np.unique(self.a.rows[np.isin(self.a.codes, codes)])
        return self.a.row_keys(rows) if len(rows) else {}

    def _row_attrs(self, keyed: dict[int, list[str]]) -> dict[int, dict[str, str]]:
        rows = np.array(sorted(keyed), dtype=np.int64)
        wanted = np.isin(self.a.rows, rows)
        names = list(self.a.code)
        out: dict[int, dict[str, str]] = {int(r): {} for r in rows}
        values = self.a.values.filter(pa.array(wanted)).to_pylist()
        for r, c, v in zip(self.a.rows[wanted].tolist(), self.a.codes[wanted].tolist(), values, strict=True):
            out[r].setdefault(names[c], v)
        return out

    def _last_user_text(self, form: FlatMessages) -> pa.Array:
        role_pattern = form.pattern((form.role,))
        attrs = self._row_attrs(self._flat_rows(role_pattern))
        rows, values = [], []
        for r, a in attrs.items():
            numbers = [int(m.group(1)) for k in a if (m := re.search(role_pattern, k))]
            last = str(max(numbers)) if numbers else "0"
            text = ""
            if a.get(f"{form.prefix}{last}{form.role}", "") == "user":
                text = next((t for s in form.texts if (t := a.get(f"{form.prefix}{last}{s}", ""))), "")
            rows.append(r)
            values.append(text)
        return self.per_row(np.array(rows, dtype=np.int64), values)

    def _output_text(self, form: FlatMessages) -> pa.Array:
        pattern = form.pattern(form.texts)
        attrs = self._row_attrs(self._flat_rows(pattern))
        rows, values = [], []
        for r, a in attrs.items():
            rows.append(r)
            values.append(next((v for k, v in a.items() if re.search(pattern, k) and v != ""), ""))
        return self.per_row(np.array(rows, dtype=np.int64), values)

    def _answer_call(self, form: FlatMessages) -> pa.Array:
        """compile._answer_call_sql: where the output messages have no text, the answer argument of their first
        call of an answer tool whose answer is not empty, else ''."""
        calls, _, name, arguments = form.tool_calls
        members = dict(rules.ANSWER_TOOLS)
        pattern = f"^{re.escape(form.prefix)}[0-9]+{re.escape(calls)}[0-9]+{re.escape(name)}$"
        text = self._output_text(form)
        attrs = self._row_attrs(self._flat_rows(pattern))
        rows, values = [], []
        for r, a in attrs.items():
            found = ""
            if text[r].as_py() == "":
                for k, v in a.items():
                    if re.search(pattern, k) and v in members:
                        found = js.extract_string(a.get(k[: len(k) - len(name)] + arguments, ""), members[v])
                        if found:
                            break
            rows.append(r)
            values.append(found)
        return self.per_row(np.array(rows, dtype=np.int64), values)

    # -- conditions --------------------------------------------------------------------------------------

    def condition(self, when: When) -> np.ndarray | None:
        """compile.condition over this batch: a mask, None when it can never hold here."""
        unknown = {f.name for f in fields(When)} - _HANDLED_WHEN
        if unknown:
            raise UnsupportedRule(f"When fields {sorted(unknown)}")
        if when.source and when.source != self.source:
            return None
        mask = np.ones(self.n, dtype=bool)
        if when.names:
            mask &= _np(pc.is_in(self.name, pa.array(when.names, type=_STR)))
        if when.prefixes:
            mask &= np.logical_or.reduce([_np(pc.starts_with(self.name, p)) for p in when.prefixes])
        if when.suffixes:
            mask &= np.logical_or.reduce([_np(pc.ends_with(self.name, s)) for s in when.suffixes])
        for key, values in when.attrs:
            if not key.startswith("@") and not self.a.holds(key):
                return np.zeros(self.n, dtype=bool)
            value = self.value(key)
            if value is None:
                return None
            mask &= _np(pc.is_in(value, pa.array(values, type=_STR)))
        for key, endings in getattr(when, "ends", ()):
            value = self.value(key)
            if value is None:
                return None
            mask &= np.logical_or.reduce([_np(pc.ends_with(value, e)) for e in endings])
        for keys in when.has:
            present = self._has(keys)
            if present is None:
                return None
            mask &= present
        if when.scope:
            mask &= _np(pc.equal(self.scope, when.scope))
        if when.service_prefix:
            mask &= _np(pc.starts_with(self.service, when.service_prefix))
        if when.not_service_prefix:
            mask &= ~_np(pc.starts_with(self.service, when.not_service_prefix))
        if when.min_value:
            key, least = when.min_value
            raw = self.a.value(key)
            valid = _int_valid(raw)
            mask &= np.where(valid, _int_values(raw, valid), 0) >= int(least)
        for wanted, test in ((when.correlated, self.correlated), (when.root, self.root)):
            if wanted is not None:
                got = test()
                if got is None:
                    return None
                mask &= got if wanted else ~got
        return mask

    def _has(self, keys: tuple[str, ...]) -> np.ndarray | None:
        if not any(k.startswith("@") for k in keys):
            return _np(np.logical_or.reduce([self.a.has(k) for k in keys]))
        values = [v for v in (self.value(k) for k in keys) if v is not None]
        if not values:
            return None
        return _np(np.logical_or.reduce([_np(pc.not_equal(v, "")) for v in values]))


def _decoded(m: _Map) -> pa.Array:
    names = pa.array(list(m.code), type=_STR)
    return names.take(pa.array(m.codes)) if len(m.codes) else pa.array([], type=_STR)


def _last_index(names: list[str], wanted: tuple[str, ...]) -> int:
    return max((i for i, n in enumerate(names) if n in wanted), default=-1)


def _flat(forms: tuple[FlatMessages, ...], prefix: str) -> FlatMessages:
    return next(f for f in forms if f.prefix == prefix)


# -- the @-values of alias keys (sources.Context.columns), over a batch -------------------------------------


def _span_status(b: Batch) -> pa.Array:
    code = b.col("StatusCode")
    return pc.if_else(pc.equal(code, "Error"), "false", pc.if_else(pc.equal(code, "Ok"), "true", ""))


def _span_ended(b: Batch) -> pa.Array:
    return pc.if_else(pc.equal(b.col("StatusCode"), "Unset"), "true", "")


def _status_message(b: Batch) -> pa.Array:
    rows = np.flatnonzero(_np(pc.equal(b.col("StatusCode"), "Error")))
    texts = b.col("StatusMessage").take(pa.array(rows)).to_pylist() if len(rows) else []
    return b.per_row(rows, [t.encode()[:3].decode(errors="replace") for t in texts])  # substring: bytes


def _rate_limit_status(b: Batch) -> pa.Array:
    refused = pc.and_(
        pc.equal(b.col("StatusCode"), "Error"),
        pc.match_substring_regex(b.col("StatusMessage"), rules.RATE_LIMIT_MESSAGE),
    )
    return pc.if_else(refused, "429", "")


def _fact_value(b: Batch, fact: str) -> pa.Array:
    return b.facts[fact][0]


def _http_error(b: Batch) -> pa.Array:
    return pc.if_else(pc.fill_null(pc.greater_equal(_fact_value(b, "http_status"), 400), False), "false", "")


def _exit_status(b: Batch) -> pa.Array:
    code = _fact_value(b, "exit_code")
    return pc.if_else(pc.is_null(code), "", pc.if_else(pc.equal(code, 0), "true", "false"))


def _tool_message_event(b: Batch) -> pa.Array:
    rows, values = [], []
    for r, evs in b.events().items():
        last = _last_index([n for n, _ in evs], (rules.TOOL_MESSAGE_EVENT,))
        rows.append(r)
        values.append(evs[last][1].get("content", "") if last >= 0 else "")
    return b.per_row(np.array(rows, dtype=np.int64), values)


def _process(b: Batch) -> pa.Array:
    """sources._PROCESS: service.name/service.instance.id of a record of the agent's work ('' for a group)."""
    assert b.kind is not None, "the process is read after the kinds"
    instance = b.r.value(INSTANCE_KEY)
    named = pc.binary_join_element_wise(pc.cast(b.service, _STR), instance, "/")
    return pc.if_else(pc.or_(pc.equal(b.kind, "group"), pc.equal(instance, "")), "", named)


_COLUMNS: dict[str, Callable[[Batch], pa.Array]] = {
    "trace_id": lambda b: b.col("TraceId"),
    "process": _process,
    "name": lambda b: b.name,
    "span_status": _span_status,
    "span_ended": _span_ended,
    "status_message": _status_message,
    "rate_limit_status": _rate_limit_status,
    "http_error": _http_error,
    "exit_status": _exit_status,
    "tool_message_event": _tool_message_event,
}
# @-values computed from facts (read after them): sources.Context.columns that name `_f_<fact>`.
_LATE = {name for ctx in CONTEXTS for name, sql in ctx.columns.items() if sql and "_f_" in sql}


# -- kinds -----------------------------------------------------------------------------------------------------


def kind_rules(b: Batch) -> tuple[list[KindRule], np.ndarray]:
    """The rules that can fire on this table (up to the first that always holds), and each row's rule index."""
    chosen = np.full(b.n, -1, dtype=np.int64)
    compiled: list[KindRule] = []
    for rule in rules.KIND_RULES:
        mask = b.condition(rule.when)
        if mask is None:
            continue
        chosen[mask & (chosen < 0)] = len(compiled)
        compiled.append(rule)
        if rule.when.source in (None, b.source) and _always(rule.when, b.source):
            break
    assert not (chosen < 0).any(), "the last rule must always hold"
    return compiled, chosen


def _always(when: When, source: Source) -> bool:
    return when == When(source=when.source) and when.source in (None, source)


def _kinds(b: Batch) -> dict[str, pa.Array]:
    compiled, index = kind_rules(b)
    pick = pa.array(index)
    raw = pa.array([r.kind or "" for r in compiled], type=_STR).take(pick)
    resolve = pa.array([r.resolve for r in compiled], type=_STR).take(pick)
    root = b.root()
    as_root = pa.array(np.ones(b.n, dtype=bool) if root is None else root)
    agent = pc.is_in(resolve, pa.array(["agent", "root_session"]))
    kind = pc.if_else(agent, pc.if_else(as_root, "session", "group"), raw)
    return {
        "kind": kind,
        "rule": pa.array([r.label for r in compiled], type=_STR).take(pick),
        "resolve": resolve,
    }


# -- facts ------------------------------------------------------------------------------------------------------


def _alias_raw(b: Batch, alias: Alias) -> pa.Array | None:
    """compile.alias_sql: the alias's value as a string ('' absent), None when the table has no such value."""
    key = alias.key
    if not any(head == "" for head, _ in alias.named):  # a key no row has is '' everywhere: never valid
        if key.startswith("resource:") and not b.r.holds(key.removeprefix("resource:")):
            return None
        if not key.startswith(("resource:", "@")) and not b.a.holds(key):
            return None
    if key.startswith("resource:"):
        raw = b.r.value(key.removeprefix("resource:"))
    elif key.startswith("@name_after:"):
        head = key.removeprefix("@name_after:")
        raw = pc.if_else(pc.starts_with(b.name, head), pc.utf8_slice_codeunits(b.name, len(head)), "")
        if head.encode() != head.encode("ascii", errors="ignore"):
            raise UnsupportedRule(f"{key}: substring counts bytes")
    elif key.startswith("@"):
        column = b.column_value(key[1:])
        if column is None:
            return None
        raw = column
    else:
        raw = b.a.value(key)
    if alias.json is not None:
        path = alias.json.split(".")  # a dotted path into nested objects, as compile.alias_sql reads it
        raw = b._json_rows(raw, lambda text: js.extract_raw(text, *path))
    if alias.pattern is not None:
        pattern = alias.pattern
        raw = b._json_rows(raw, lambda text: js.extract(text, pattern))
    if alias.named:
        named = _const(b.n)
        done = np.zeros(b.n, dtype=bool)
        for head, name in alias.named:
            hit = _np(pc.starts_with(raw, head)) & ~done
            named = pc.if_else(pa.array(hit), name, named)
            done |= hit
        raw = pc.if_else(pa.array(done), named, raw)
    if alias.when is not None:
        cond = b.condition(alias.when)
        if cond is None:
            return None
        raw = pc.if_else(pa.array(cond), raw, "")
    return raw


def _typed(kind: FactType, raw: pa.Array, valid: np.ndarray) -> pa.Array:
    mask = ~valid
    if kind == "string":
        return pc.if_else(pa.array(valid), raw, pa.scalar(None, _STR))
    if kind in ("int", "status"):
        return pa.array(_int_values(raw, valid), type=pa.int64(), mask=mask)
    if kind == "float":
        return pa.array(_float_values(raw, valid), type=pa.float64(), mask=mask)
    if kind == "bool":
        return pa.array(_np(pc.is_in(raw, pa.array(_TRUE))), type=pa.bool_(), mask=mask)
    raise UnsupportedRule(f"fact type {kind}")


def _plus(b: Batch, alias: Alias) -> np.ndarray:
    total = np.zeros(b.n, dtype=np.int64)
    for k in alias.plus:
        raw = b.a.value(k)
        valid = _int_valid(raw)
        total += np.where(valid, _int_values(raw, valid), 0)
    return total


def _fact(b: Batch, fid: int, fact: Fact, kind: pa.Array) -> None:
    """compile._Entries and _facts_sql: the first alias whose value is valid for the fact's type wins (the
    fact's kinds allowing, up to its first late alias; its late tail after, whatever the kind)."""
    n = b.n
    won = np.full(n, -1, dtype=np.int64)
    raws: list[tuple[Alias, pa.Array | None]] = []
    allowed = _np(pc.is_in(kind, pa.array(fact.only_kinds, type=_STR))) if fact.only_kinds else np.ones(n, bool)
    late = False
    for alias in fact.aliases:
        late = late or (alias.key.startswith("@") and alias.key[1:] in _LATE)
        raw = _alias_raw(b, alias)
        raws.append((alias, raw))
        if raw is None:
            continue
        valid = _valid(fact.type, raw) & (won < 0)
        if not late:
            valid &= allowed
        won[valid] = len(raws) - 1
    value_text = _const(n)
    hows = _const(n)
    for j, (alias, raw) in enumerate(raws):
        at = won == j
        if raw is None or not at.any():
            continue
        value_text = pc.if_else(pa.array(at), raw, value_text)
        hows = pc.if_else(pa.array(at), alias.how, hows)
    typed = _typed(fact.type, value_text, won >= 0)
    if fact.type == "int" and any(a.plus for a in fact.aliases):
        extra = np.zeros(n, dtype=np.int64)
        for j, (alias, raw) in enumerate(raws):
            if alias.plus and raw is not None:
                extra = np.where(won == j, _plus(b, alias), extra)
        typed = pc.add(typed, pa.array(extra))
    if fact.type == "float" and any(a.scale is not None for a in fact.aliases):
        scale = np.ones(n, dtype=np.float64)
        for j, (alias, raw) in enumerate(raws):
            if alias.scale is not None and raw is not None:
                scale[won == j] = alias.scale
        typed = pc.multiply(typed, pa.array(scale))
    if fact.type == "status":
        in_range = pc.and_(pc.greater_equal(typed, 100), pc.less(typed, 600))
        typed = pc.if_else(in_range, typed, pa.scalar(None, pa.int64()))
        typed = pc.cast(typed, pa.uint16())
    b.facts[fact.name] = (typed, hows)


def _facts(b: Batch, kind: pa.Array) -> None:
    """Facts without a late alias first, then those with one (in the table's order), as the views do."""
    order = sorted(
        enumerate(rules.FACTS, start=1),
        key=lambda p: any(a.key.startswith("@") and a.key[1:] in _LATE for a in p[1].aliases),
    )
    for fid, fact in order:
        _fact(b, fid, fact, kind)


# -- tool categories and target paths ------------------------------------------------------------------------


def _arguments(raw: str) -> str:
    """sql_parts.unwrapped_arguments_sql for one value."""
    doc = js.parse(raw)
    for inner, others in rules.ARGUMENT_WRAPPERS:
        known = (inner, *others)
        if (
            js.json_type(doc, inner) == "Object"
            and all(k in known for k in js.keys(doc))
            and all(js.json_type(doc, k) != "Array" or len(doc[k]) == 0 for k in js.keys(doc))
        ):
            return js.raw(doc[inner])
    return raw


_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")
_MCP_PART = r"(?s)^(?:mcp__)?.*?__"


@cache
def _exact_names() -> dict[str, str]:
    out: dict[str, str] = {}
    for cat in rules.TOOL_CATEGORIES:
        for name in cat.names:
            out.setdefault(name, cat.name)
    return out


@cache
def _editor_commands() -> dict[str, str]:
    commands: dict[str, str] = {}
    for cat, cmds in rules.EDITOR_COMMANDS:
        for cmd in cmds:
            commands.setdefault(cmd, cat)
    return commands


def _category(tool_name: str, args: str, attrs: dict[str, str], has: Callable[[str], bool]) -> str:
    """sql_parts.tool_helpers_sql and category_sql for one tool call."""
    tn = tool_name.translate(_ASCII_LOWER)  # lower(): ASCII letters only
    part = re.sub(_MCP_PART, "", tn, count=1)
    markers = any(has(k) for k, v in rules.MCP_MARKERS if v is None) or any(
        attrs.get(k, "") == v for k, v in rules.MCP_MARKERS if v is not None
    )
    by_keyword = "other"
    if "__" in tn or markers:
        by_keyword = next((cat for cat, words in rules.MCP_KEYWORDS if any(w in part for w in words)), "other")
    if attrs.get("gen_ai.operation.name", "") == "plan":
        return "plan"
    exact = _exact_names().get(part, "")
    if exact:
        return exact
    for cat in rules.TOOL_CATEGORIES:
        for p in cat.prefixes:
            if part.startswith(p):
                return cat.name
    if tn in rules.EDITOR_TOOLS:
        return _editor_commands().get(js.extract_string(args, "command"), by_keyword)
    return by_keyword


def _target_paths(args: str, attrs: dict[str, str]) -> list[str]:
    """sql_parts.target_paths_sql for one tool call."""
    found = [attrs.get(k, "") for k in rules.PATH_ATTRIBUTES] + [js.extract(args, rules.BARE_PATH)]
    found += [js.extract_string(args, k) for k in rules.PATH_KEYS]
    if "*** " in args:
        for header in rules.PATCH_HEADERS:
            found += js.extract_all(args, header + _PATH_END)
    out: list[str] = []
    for p in found:
        if p and p not in out:
            out.append(p)
    return out


def _unwrap(b: Batch, args: pa.Array) -> pa.Array:
    """The tool arguments unwrapped (sql_parts.unwrapped_arguments_sql), in Python only where a wrapper's key
    is named in them."""
    wrapped = np.zeros(b.n, dtype=bool)
    for inner, _ in rules.ARGUMENT_WRAPPERS:
        wrapped |= _np(pc.match_substring(args, f'"{inner}"'))
    rows = np.flatnonzero(wrapped)
    if not len(rows):
        return args
    texts = args.take(pa.array(rows)).to_pylist()
    return pc.if_else(pa.array(wrapped), b.per_row(rows, [_arguments(t) for t in texts]), args)


def _tools(b: Batch, kind: pa.Array) -> tuple[pa.Array, pa.Array]:
    """ToolCategory (NULL without a tool name) and TargetPaths ([] unless a tool or subagent). Vectorized for
    plain tool names; an MCP tool, an editor tool or a call with arguments or a path attribute is read in Python."""
    n = b.n
    tool_name, _ = b.facts["tool_name"]
    named = ~_np(pc.is_null(tool_name))
    pathed = _np(pc.is_in(kind, pa.array(["tool", "subagent"])))
    args = _unwrap(b, pc.fill_null(b.facts["arguments"][0], ""))
    tn = pc.ascii_lower(pc.fill_null(tool_name, ""))
    part = pc.replace_substring_regex(tn, _MCP_PART, "", max_replacements=1)
    exact = _exact_names()
    found = pc.fill_null(pa.array(list(exact.values()), type=_STR).take(pc.index_in(part, pa.array(list(exact)))), "")
    category = pc.if_else(pc.not_equal(found, ""), found, "other")
    done = _np(pc.not_equal(found, ""))
    for cat in rules.TOOL_CATEGORIES:
        for prefix in cat.prefixes:
            hit = _np(pc.starts_with(part, prefix)) & ~done
            category = pc.if_else(pa.array(hit), cat.name, category)
            done |= hit
    plan = _np(pc.equal(b.a.value("gen_ai.operation.name"), "plan"))
    category = pc.if_else(pa.array(plan), "plan", category)
    slow = _np(pc.is_in(tn, pa.array(rules.EDITOR_TOOLS, type=_STR))) | _np(pc.match_substring(tn, "__"))
    for key, wanted in rules.MCP_MARKERS:
        slow |= b.a.has(key) if wanted is None else _np(pc.equal(b.a.value(key), wanted))
    slow &= named & ~plan
    path_keys = [k for k in rules.PATH_ATTRIBUTES if b.a.holds(k)]
    with_any_path = np.logical_or.reduce([b.a.has(k) for k in path_keys] or [np.zeros(len(args), dtype=bool)])
    with_paths = pathed & (_np(pc.not_equal(args, "")) | with_any_path)
    rows = np.flatnonzero(slow | with_paths)
    paths: dict[int, list[str]] = {}
    if len(rows):
        attrs = b._row_attrs({int(r): [] for r in rows})
        names = tool_name.take(pa.array(rows)).to_pylist()
        texts = args.take(pa.array(rows)).to_pylist()
        slow_rows, slow_values = [], []
        for i, r in enumerate(rows.tolist()):
            a = attrs.get(r, {})
            if slow[r]:
                slow_rows.append(r)
                slow_values.append(_category(names[i] or "", texts[i], a, a.__contains__))
            if with_paths[r]:
                paths[r] = _target_paths(texts[i], a)
        if slow_rows:
            category = pc.if_else(pa.array(slow), b.per_row(np.array(slow_rows), slow_values), category)
    category = pc.if_else(pa.array(named), category, pa.scalar(None, _STR))
    lengths = np.zeros(n, dtype=np.int32)
    for r, found in paths.items():
        lengths[r] = len(found)
    offsets = pa.array(np.concatenate([[0], np.cumsum(lengths)]).astype(np.int32))
    flat = pa.array([p for r in sorted(paths) for p in paths[r]], type=_STR)
    return category, pa.ListArray.from_arrays(offsets, flat)


# -- derived rows ----------------------------------------------------------------------------------------------


def derived_outputs() -> list[tuple[Derived, str]]:
    """compile.derived_outputs: (carrier rule, kind) of each derived row, numbered from 1."""
    return [(d, k) for d in rules.DERIVED for k in ([k for _, k in d.parts] if d.parts else [d.kind])]


def _derived(b: Batch, kind: pa.Array) -> list[list[int]]:
    """Each row's derived row numbers, in order (compile.derived_sql)."""
    out: list[list[int]] = [[] for _ in range(b.n)]
    number = 1
    for d in rules.DERIVED:
        numbers = list(range(number, number + (len(d.parts) or 1)))
        number += len(numbers)
        mask = b.condition(d.when) if d.when else np.ones(b.n, dtype=bool)
        if mask is None:
            continue
        if d.kinds:
            mask = mask & _np(pc.is_in(kind, pa.array(d.kinds, type=_STR)))
        if d.parts:
            mask = mask & b.a.has(d.key)
            rows = np.flatnonzero(mask)
            texts = b.a.value(d.key).take(pa.array(rows)).to_pylist() if len(rows) else []
            numbered = dict(zip((t for t, _ in d.parts), numbers, strict=True))
            for r, text in zip(rows.tolist(), texts, strict=True):
                out[r] += [numbered[t] for t in js.part_types(text) if t in numbered]
            continue
        if d.key.startswith("@"):
            value = b.value(d.key)
            if value is None:
                continue
            mask = mask & _np(pc.not_equal(value, ""))
        else:
            mask = mask & b.a.has(d.key)
        for r in np.flatnonzero(mask).tolist():
            out[r].append(numbers[0])
    return out


# -- the agent_events rows ---------------------------------------------------------------------------------------


def _timing(b: Batch) -> dict[str, pa.Array]:
    ts = b.col("Timestamp")
    ns = pc.cast(pc.cast(ts, pa.timestamp("ns")), pa.int64()).to_numpy(zero_copy_only=False)
    tz = ts.type
    if b.source == "span":
        duration = b.col("Duration").to_numpy(zero_copy_only=False).astype(np.int64)
        inferred = _np(pc.is_in(b.scope, pa.array(rules.INFERRED_TIMING_SCOPES, type=_STR)))
        return {
            "Timestamp": ts,
            "EndTimestamp": pa.array(ns + duration, type=pa.int64()).cast(tz),
            "DurationNs": pa.array(duration.astype(np.uint64), type=pa.uint64()),
            "TimingQuality": pa.array(np.where(inferred, "inferred", "measured").astype(object), type=_STR),
            "EventId": b.col("SpanId"),
            "ParentSpanId": b.col("ParentSpanId"),
        }
    raw = b.a.value(rules.LOG_DURATION_KEY)
    valid = _float_valid(raw)
    ms = _float_values(raw, valid)
    nanos = ms * 1_000_000
    start = ns - np.where(valid, np.trunc(nanos), 0).astype(np.int64)
    return {
        "Timestamp": pa.array(start, type=pa.int64()).cast(tz),
        "EndTimestamp": pa.array(ns, type=pa.int64(), mask=~valid).cast(tz),
        "DurationNs": pa.array(np.where(valid, nanos, 0).astype(np.uint64), type=pa.uint64(), mask=~valid),
        "TimingQuality": pa.array(np.where(valid, "inferred", "unknown").astype(object), type=_STR),
        "EventId": b.col(LOG_EVENT_ID),
        "ParentSpanId": _const(b.n),
    }


def _provenance(keys: list[str], values: list[pa.Array], rows: np.ndarray) -> pa.Array:
    """A Map column: the same keys on every row (in order), each row's values from `values` at `rows`."""
    width, count, n = len(keys), len(rows), len(values[0])
    every = pa.concat_arrays([v.cast(_STR) for v in values])
    index = (np.arange(width, dtype=np.int64)[None, :] * n + rows[:, None]).reshape(-1)
    flat_values = every.take(pa.array(index))
    flat_keys = pa.array(keys, type=_STR).take(pa.array(np.tile(np.arange(width, dtype=np.int64), count)))
    offsets = pa.array(np.arange(0, (count + 1) * width, width, dtype=np.int32))
    return pa.MapArray.from_arrays(offsets, flat_keys, flat_values)


AGENT_COLUMNS = (
    "Timestamp",
    "EndTimestamp",
    "DurationNs",
    "TimingQuality",
    "EventId",
    "TraceId",
    "SpanId",
    "ParentSpanId",
    "SourceTable",
    "Kind",
    "KindRule",
    "Resolve",
    "Name",
    "ServiceName",
    "ScopeName",
    "Tenant",
)


def classify(table: pa.Table, source: Source) -> pa.Table:
    """The agent_events rows of a batch of raw rows (otel_traces' or otel_logs' columns; a log batch also
    LOG_EVENT_ID), as the views would write them for the same rows."""
    b = Batch(table, source)
    k = _kinds(b)
    kind = b.kind = k["kind"]
    _facts(b, kind)
    category, paths = _tools(b, kind)
    timing = _timing(b)
    derived = _derived(b, kind)
    outputs = derived_outputs()
    # ARRAY JOIN [0, derived numbers]: each record's own row, then its derived rows; WHERE _kind != ''.
    keep = _np(pc.not_equal(kind, ""))
    carriers = [r for r in np.flatnonzero(keep).tolist() if derived[r]]
    extra_rows = np.array([r for r in carriers for _ in derived[r]], dtype=np.int64)
    extra_numbers = np.array([x for r in carriers for x in derived[r]], dtype=np.int64)
    extra_positions = np.array([i + 2 for r in carriers for i in range(len(derived[r]))], dtype=np.int64)
    own = np.flatnonzero(keep)
    at = np.concatenate([own, extra_rows])
    d = np.concatenate([np.zeros(len(own), dtype=np.int64), extra_numbers])
    positions = np.concatenate([np.ones(len(own), dtype=np.int64), extra_positions])
    order = np.argsort(at, kind="stable")  # each record's own row, then its derived rows
    at, d, positions = at[order], d[order], positions[order]
    is_d = d > 0
    take = pa.array(at)
    dmask = pa.array(is_d)
    d_kind = pa.array([""] + [k_ for _, k_ in outputs], type=_STR).take(pa.array(d))
    d_label = pa.array([""] + [c.label for c, _ in outputs], type=_STR).take(pa.array(d))
    own_id = timing["EventId"].take(take)
    kinds_of = d_kind.filter(pa.array(is_d)).to_pylist()
    suffixes = [f":{k_}:{p - 2}" for k_, p in zip(kinds_of, positions[is_d].tolist(), strict=True)]
    suffix = b_per(len(at), np.flatnonzero(is_d), suffixes)
    cols: dict[str, pa.Array] = {
        "Timestamp": timing["Timestamp"].take(take),
        "EndTimestamp": timing["EndTimestamp"].take(take),
        "DurationNs": timing["DurationNs"].take(take),
        "TimingQuality": pc.if_else(dmask, "inferred", timing["TimingQuality"].take(take)),
        "EventId": pc.if_else(dmask, pc.binary_join_element_wise(own_id, suffix, ""), own_id),
        "TraceId": b.col("TraceId").take(take),
        "SpanId": b.col("SpanId").take(take),
        "ParentSpanId": pc.if_else(dmask, own_id, timing["ParentSpanId"].take(take)),
        "SourceTable": _const(len(at), b.ctx.table),
        "Kind": pc.if_else(dmask, d_kind, kind.take(take)),
        "KindRule": pc.if_else(dmask, d_label, k["rule"].take(take)),
        "Resolve": pc.if_else(dmask, "", k["resolve"].take(take)),
        "Name": b.name.take(take),
        "ServiceName": b.service.take(take),
        "ScopeName": b.scope.take(take),
        "Tenant": b.r.value("harborlight.tenant").take(take),
    }
    null_on_derived = pc.invert(dmask)
    for fact in rules.FACTS:
        if not fact.column:
            continue
        value = b.facts[fact.name][0].take(take)
        kept = fact.name in rules.DERIVED_KEEPS
        cols[fact.column] = value if kept else pc.if_else(null_on_derived, value, pa.scalar(None, value.type))
    cols["ToolCategory"] = pc.if_else(null_on_derived, category.take(take), pa.scalar(None, _STR))
    empty_paths = pa.array([[]] * len(at), type=pa.list_(_STR))
    cols["TargetPaths"] = pc.if_else(null_on_derived, paths.take(take), empty_paths)
    cols["Provenance"] = _provenance_column(b, at, is_d, category, paths)
    return pa.table(cols)


def b_per(n: int, rows: np.ndarray, values: list[str]) -> pa.Array:
    index = np.zeros(n, dtype=np.int64)
    index[rows] = np.arange(1, len(rows) + 1)
    return pa.array(["", *values], type=_STR).take(pa.array(index))


def _provenance_column(b: Batch, at: np.ndarray, is_d: np.ndarray, category: pa.Array, paths: pa.Array) -> pa.Array:
    """sql_parts.provenance_sql: fact -> how, '' when absent; a derived row keeps its kept facts and 'kind'."""
    facts = [f.name for f in rules.FACTS if f.column]
    kept = [f for f in facts if f in rules.DERIVED_KEEPS]
    n = b.n
    own_keys = [*facts, "kind", "tool_category", "target_paths"]
    own_values = [b.facts[f][1] for f in facts] + [
        _const(n, "inferred"),
        pc.if_else(pc.is_null(category), "", "inferred"),
        pc.if_else(pc.equal(pc.list_value_length(paths), 0), "", "derived"),
    ]
    d_keys = [*kept, "kind"]
    d_values = [b.facts[f][1] for f in kept] + [_const(n, "derived")]
    order = np.arange(len(at))
    own = _provenance(own_keys, own_values, at[~is_d])
    der = _provenance(d_keys, d_values, at[is_d])
    merged = pa.concat_arrays([own, der])
    # back to the rows' order: own rows then derived rows were taken apart
    position = np.concatenate([order[~is_d], order[is_d]])
    inverse = np.empty_like(position)
    inverse[position] = np.arange(len(position))
    return merged.take(pa.array(inverse))


def raw_select(source: Source) -> str:
    """The SELECT list `classify` reads of a raw table: every column (a log record with its EventId)."""
    return f"*, {log_event_id_sql()} AS {LOG_EVENT_ID}" if source == "log" else "*"
