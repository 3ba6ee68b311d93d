"""Compiles the agent convention table (harborlight/agent/rules.py) into ClickHouse SQL: one
materialized view per raw table (otel_traces, otel_logs) into agent_events.

The generated statements live in harborlight/store/sql/agent_events_{traces,logs}_mv.sql so that migrations
apply them like any other DDL and Grafana authors can read them; a test keeps them in sync. The names view
(harborlight/agent/identity.py NAMES_VIEW) is written beside them, agent_names_mv.sql: the store reads the
agent layer's statements from its files and imports nothing of it.
Regenerate with `python -m harborlight.agent.compile`.

ClickHouse analyses a view's query again on every INSERT, at roughly 70 µs per function call and
2.5 µs per element of a constant array, so the SQL is shaped for few calls:
- consecutive kind rules that test one value (the name, or one attribute alone) are one hash
  lookup (`transform`);
- facts are read in one pass over the record's attributes: each attribute a fact alias names gets a
  rank (fact, precedence, provenance); the entries valid for their fact's type are sorted by rank,
  and a map from fact to its first entry gives every fact with one lookup;
- conditions are nested if()s, not AND/OR chains (agent_sql_parts.all_of says why);
- each stage passes on only the columns later stages read;
- derived child records (rules.DERIVED) are one final ARRAY JOIN over [the record itself, its
  derived rows] in the same view: another view would cost its own analysis on every INSERT.
"""

import re
from dataclasses import replace
from importlib.resources import files
from pathlib import Path

from harborlight.agent import rules
from harborlight.agent.identity import NAMES_VIEW
from harborlight.agent.rule_types import Alias, Derived, Fact, FlatMessages, KindRule, When
from harborlight.agent.sources import CONTEXTS, Context
from harborlight.agent.sql_parts import (
    BOOL_WORDS,
    all_of,
    any_of,
    category_sql,
    has_sql,
    lit,
    one_of,
    provenance_sql,
    target_paths_sql,
    tool_exact_sql,
    tool_helpers_sql,
    typed,
)
from harborlight.sql_text import TENANT_ATTRIBUTE

_STRIDE = 128  # rank = fact id * 128 + alias index * 4 + how code: sorted ranks group by fact, then precedence
_HOWS = ("measured", "derived", "inferred")  # how codes 1..3 (rank % 4)


# Keys of `attr` and `has` tests that read a record's content rather than one attribute:
#   `@body:<path>`         the log record's body (JSON) at a dotted path, as text ('' when absent; spans: never);
#   `@<value>`             a value of the record (sources.Context.columns: `@span_status`, ...; None where the
#                          table has none);
#   `@last_text_role:<key>` the role of the last message of the JSON messages attribute `<key>` (GenAI's
#                          `[{role, parts: [{type, ...}]}]`) when that message has a `text` part ('' when it has
#                          none, or the JSON is malformed or empty).
BODY, LAST_TEXT_ROLE = "@body:", "@last_text_role:"


def value_sql(key: str, ctx: Context) -> str | None:
    """SQL of the value an `attr`/`has` test reads ('' when absent), None when this table has none."""
    if key.startswith(BODY):
        if ctx.source != "log":
            return None
        path = ", ".join(lit(p) for p in key.removeprefix(BODY).split("."))
        return f"JSONExtractString(Body, {path})"
    if key.startswith("@") and key[1:] in ctx.columns:  # a value of the record (sources.Context.columns)
        return ctx.columns[key[1:]]
    if key in (rules.USER_EVENT_TURN, rules.CHOICE_EVENT_TEXT):
        return _span_event_text_sql(key) if ctx.source == "span" else None
    if key.startswith(rules.LAST_USER_TEXT):
        return _last_user_text_sql(_flat(rules.FLAT_INPUT_MESSAGES, key.removeprefix(rules.LAST_USER_TEXT)))
    if key.startswith(rules.OUTPUT_TEXT):
        return _output_text_sql(_flat(rules.FLAT_OUTPUT_MESSAGES, key.removeprefix(rules.OUTPUT_TEXT)))
    if key.startswith(rules.ANSWER_CALL):
        return _answer_call_sql(_flat(rules.FLAT_OUTPUT_MESSAGES, key.removeprefix(rules.ANSWER_CALL)))
    if key.startswith(rules.LAST_USER_CONTENT):
        messages = f"_a[{lit(key.removeprefix(rules.LAST_USER_CONTENT))}]"
        parts = (
            f"arrayStringConcat(arrayMap(p -> if(JSONExtractString(p, 'type') = 'text', JSONExtractString(p, 'text'), "
            f"''), JSONExtractArrayRaw({messages}, -1, 'content')))"
        )
        return (
            f"if(JSONExtractString({messages}, -1, 'role') = 'user', if(JSONType({messages}, -1, 'content') = 'String', "
            f"JSONExtractString({messages}, -1, 'content'), {parts}), '')"
        )
    if key.startswith(LAST_TEXT_ROLE):
        messages = f"_a[{lit(key.removeprefix(LAST_TEXT_ROLE))}]"
        return (
            f"if(has(JSONExtract({messages}, -1, 'parts', 'Array(Tuple(type String))').1, 'text'), "
            f"JSONExtractString({messages}, -1, 'role'), '')"
        )
    return f"_a[{lit(key)}]"


def _content_text_sql(content: str) -> str:
    """A message content's text: the string, or the `text` of its parts when it is a JSON list."""
    return (
        f"if(startsWith({content}, '['), arrayStringConcat(arrayMap(p -> JSONExtractString(p, 'text'), "
        f"JSONExtractArrayRaw({content}))), {content})"
    )


def _span_event_text_sql(key: str) -> str:
    """rules.USER_EVENT_TURN / CHOICE_EVENT_TEXT over a span's events (the text, else '')."""
    if key == rules.CHOICE_EVENT_TEXT:
        last = "arrayLastIndex(n -> n = 'gen_ai.choice', _event_names)"
        return _content_text_sql(f"_event_attributes[{last}]['message']")
    last = f"arrayLastIndex(n -> {one_of('n', rules.MESSAGE_EVENTS)}, _event_names)"
    content = _content_text_sql(f"_event_attributes[{last}]['content']")
    return f"if(_event_names[{last}] = 'gen_ai.user.message', {content}, '')"


def _output_text_sql(form: FlatMessages) -> str:
    """The first non-empty text of the flattened output messages, else ''."""
    return f"_a[arrayFirst(k -> match(k, {lit(form.pattern(form.texts))}) AND _a[k] != '', mapKeys(_a))]"


def _answer_call_sql(form: FlatMessages) -> str:
    """rules.ANSWER_TOOLS: where the flattened output messages have no text, the answer argument of their first
    call of an answer tool (its JSON arguments' member, as text), else ''."""
    calls, _, name, arguments = form.tool_calls
    names = tuple(n for n, _ in rules.ANSWER_TOOLS)
    members = ", ".join(lit(a) for _, a in rules.ANSWER_TOOLS)
    pattern = lit(f"^{re.escape(form.prefix)}[0-9]+{re.escape(calls)}[0-9]+{re.escape(name)}$")
    answer = (
        f"JSONExtractString(_a[concat(substring(k, 1, length(k) - {len(name)}), {lit(arguments)})], "
        f"transform(_a[k], [{', '.join(map(lit, names))}], [{members}], ''))"
    )
    found = f"arrayFirst(x -> x != '', arrayMap(k -> if(match(k, {pattern}), if({one_of('_a[k]', names)}, {answer}, ''), ''), mapKeys(_a)))"
    return f"if({_output_text_sql(form)} = '', {found}, '')"


def _flat(forms: tuple[FlatMessages, ...], prefix: str) -> FlatMessages:
    return next(f for f in forms if f.prefix == prefix)


def _last_user_text_sql(form: FlatMessages) -> str:
    """The last flattened message's text when its role is user, else ''."""
    last = (
        f"toString(arrayMax(arrayMap(k -> toUInt32OrZero(extract(k, {lit(form.pattern((form.role,)))})), mapKeys(_a))))"
    )
    texts = ", ".join(f"_a[concat({lit(form.prefix)}, {last}, {lit(s)})]" for s in form.texts)
    return (
        f"if(_a[concat({lit(form.prefix)}, {last}, {lit(form.role)})] = 'user', "
        f"arrayFirst(x -> x != '', [{texts}]), '')"
    )


def _has_sql(keys: tuple[str, ...], ctx: Context) -> str | None:
    if not any(k.startswith("@") for k in keys):
        return has_sql(keys)
    values = [v for v in (value_sql(k, ctx) for k in keys) if v is not None]
    return any_of([f"{v} != ''" for v in values]) if values else None


def condition_parts(when: When, ctx: Context) -> list[str] | None:
    """The SQL tests of `when` on this table ([] when it always holds, None when it never can).
    `_a` holds only non-empty attributes, so a present key is a non-empty value."""
    if when.source and when.source != ctx.source:
        return None
    parts: list[str] = []
    if when.names:
        parts.append(one_of("_name", when.names))
    if when.prefixes:
        parts.append(any_of([f"startsWith(_name, {lit(p)})" for p in when.prefixes]))
    if when.suffixes:
        parts.append(any_of([f"endsWith(_name, {lit(s)})" for s in when.suffixes]))
    for key, values in when.attrs:
        value = value_sql(key, ctx)
        if value is None:
            return None
        parts.append(one_of(value, values))
    for key, endings in when.ends:
        value = value_sql(key, ctx)
        if value is None:
            return None
        parts.append(f"match({value}, {lit('(?:' + '|'.join(re.escape(e) for e in endings) + ')$')})")
    for keys in when.has:
        present = _has_sql(keys, ctx)
        if present is None:
            return None
        parts.append(present)
    if when.scope:
        parts.append(f"ScopeName = {lit(when.scope)}")
    if when.service_prefix:
        parts.append(f"startsWith(ServiceName, {lit(when.service_prefix)})")
    if when.not_service_prefix:
        parts.append(f"NOT startsWith(ServiceName, {lit(when.not_service_prefix)})")
    if when.min_value:
        key, least = when.min_value
        parts.append(f"toInt64OrZero(_a[{lit(key)}]) >= {int(least)}")
    for wanted, expr in ((when.correlated, ctx.correlated), (when.root, ctx.root)):
        if wanted is not None:
            if expr is None:
                return None
            parts.append(expr if wanted else f"NOT ({expr})")
    return parts


def condition(when: When, ctx: Context) -> str | None:
    """SQL for `when` on this table, 'true' when it always holds, None when it never can."""
    parts = condition_parts(when, ctx)
    return None if parts is None else all_of(parts) if parts else "true"


def compiled_rules(ctx: Context) -> list[tuple[KindRule, str]]:
    """The rules that can fire on this table, in order, up to the first unconditional one."""
    out = []
    for rule in rules.KIND_RULES:
        cond = condition(rule.when, ctx)
        if cond is not None:
            out.append((rule, cond))
            if cond == "true":
                break
    return out


def _lookup_key(when: When, ctx: Context) -> tuple[str, str] | None:
    """(tested value, other tests) of a rule that tests one value against a list: the name (with
    other tests its neighbours may share), or one attribute alone."""
    if when.names and not (when.prefixes or when.suffixes):
        return "_name", condition(replace(when, names=(), source=None), ctx) or "false"
    if replace(when, attrs=(), has=(), source=None) == When() and len(when.attrs) + len(when.has) == 1:
        keys = [when.attrs[0][0]] if when.attrs else list(when.has[0])
        if len(keys) == 1 and not keys[0].startswith("@"):
            return f"_a[{lit(keys[0])}]", "true"
    return None


def _kind_sql(ctx: Context) -> tuple[list[str], list[str], list[str]]:
    """(lookups, rule index, kind columns). Consecutive rules testing the same value become one
    `transform` to the first rule that holds (0: none), read by one branch of the multiIf."""
    compiled = compiled_rules(ctx)
    groups: list[tuple[tuple[str, str] | None, list[tuple[int, KindRule, str]]]] = []
    for i, (rule, cond) in enumerate(compiled, start=1):
        key = _lookup_key(rule.when, ctx)
        if groups and key is not None and groups[-1][0] == key:
            groups[-1][1].append((i, rule, cond))
        else:
            groups.append((key, [(i, rule, cond)]))
    lookups: list[str] = []
    branches: list[tuple[str, str]] = []
    for key, members in groups:
        if key is None or len(members) == 1:
            branches += [(cond, str(i)) for i, _, cond in members]
            continue
        expr, rest = key
        mapping: dict[str, int] = {}
        default = 0
        for i, rule, _ in members:
            if default:
                break  # a presence test before took every other value
            w = rule.when
            values = w.names if expr == "_name" else (w.attrs[0][1] if w.attrs else ())
            for v in values:
                mapping.setdefault(v, i)
            if not values:
                default = i
        if default:
            mapping.setdefault("", 0)
        name = f"_k{len(lookups)}"
        lookups.append(
            f"transform({expr}, [{', '.join(map(lit, mapping))}], "
            f"[{', '.join(map(str, mapping.values()))}], {default}) AS {name}"
        )
        branches.append((all_of([f"{name} != 0"] + ([] if rest == "true" else [rest])), name))
    assert branches[-1][0] == "true", "the last rule must always hold"
    index = f"multiIf({', '.join(f'{c}, {v}' for c, v in branches[:-1])}, {branches[-1][1]})"
    kinds = ", ".join(lit(r.kind or "") for r, _ in compiled)
    labels = ", ".join(lit(r.label) for r, _ in compiled)
    resolves = ", ".join(lit(r.resolve) for r, _ in compiled)
    root = ctx.root or "true"
    return (
        lookups,
        [f"toUInt16({index}) AS _rule"],
        [
            f"[{kinds}][_rule] AS _kind_raw",
            f"[{labels}][_rule] AS _kind_rule",
            f"[{resolves}][_rule] AS _resolve",
            f"multiIf(_resolve = 'agent', if({root}, 'session', 'group'), "
            f"_resolve = 'root_session', if({root}, 'session', 'group'), _kind_raw) AS _kind",
        ],
    )


def alias_sql(alias: Alias, ctx: Context) -> str | None:
    """The alias's value as a String ('' when absent); None when the table has no such value."""
    if alias.key.startswith("resource:"):
        raw = f"_r[{lit(alias.key.removeprefix('resource:'))}]"
    elif alias.key.startswith("@name_after:"):
        head = alias.key.removeprefix("@name_after:")
        raw = f"if(startsWith(_name, {lit(head)}), substring(_name, {len(head) + 1}), '')"
    elif alias.key.startswith("@"):
        column = ctx.columns[alias.key[1:]]
        if column is None:
            return None
        raw = column
    else:
        raw = f"_a[{lit(alias.key)}]"
    if alias.json is not None:
        raw = f"JSONExtractRaw({raw}, {', '.join(map(lit, alias.json.split('.')))})"
    if alias.pattern is not None:
        raw = f"extract({raw}, {lit(alias.pattern)})"
    if alias.named:
        raw = f"multiIf({', '.join(f'startsWith({raw}, {lit(p)}), {lit(n)}' for p, n in alias.named)}, {raw})"
    if alias.when is not None:
        cond = condition(alias.when, ctx)
        if cond is None:
            return None
        raw = raw if cond == "true" else f"if({cond}, {raw}, '')"
    return raw


def _is_late(alias: Alias, ctx: Context) -> bool:
    """An alias computed from another fact (read after the facts)."""
    return alias.key.startswith("@") and "_f_" in (ctx.columns.get(alias.key[1:]) or "")


class _Entries:
    """Where each fact alias is read: ranks for attribute and resource keys (one `transform` over the
    record's keys each), (rank, SQL) for any other value, and each fact's late tail of aliases."""

    def __init__(self, ctx: Context):
        self.attr: dict[str, int] = {}
        self.resource: dict[str, int] = {}
        self.values: list[tuple[int, str]] = []
        self.tails: dict[str, list[Alias]] = {}
        self.ranks: dict[tuple[str, int], int] = {}
        for fid, fact in enumerate(rules.FACTS, start=1):
            assert len(fact.aliases) < _STRIDE // 4, f"too many aliases for {fact.name}"
            for j, alias in enumerate(fact.aliases):
                if fact.name in self.tails or _is_late(alias, ctx):
                    self.tails.setdefault(fact.name, []).append(alias)
                    continue
                raw = alias_sql(alias, ctx)
                if raw is None:
                    continue
                rank = self.ranks[fact.name, j] = fid * _STRIDE + j * 4 + _HOWS.index(alias.how) + 1
                table, key = (
                    (self.resource, alias.key.removeprefix("resource:"))
                    if alias.key.startswith("resource:")
                    else (self.attr, alias.key)
                )
                if alias.when is None and not alias.reads_inside and not key.startswith("@") and key not in table:
                    table[key] = rank
                else:  # a computed value, or a key another fact reads too
                    self.values.append((rank, raw))

    def sql(self, ctx: Context) -> str:
        """`_e`: the (rank, value) entries valid for their fact, sorted by rank."""

        def ranks(table: dict[str, int], column: str) -> str:
            return (
                f"arrayMap(k -> transform(k, [{', '.join(map(lit, table))}], "
                f"[{', '.join(map(str, table.values()))}], 0), mapKeys({column}))"
            )

        ranks_sql = (
            f"arrayConcat({ranks(self.attr, '_a')}, {ranks(self.resource, '_r')}, "
            f"[{', '.join(str(r) for r, _ in self.values)}])"
        )
        values_sql = f"arrayConcat(mapValues(_a), mapValues(_r), [{', '.join(v for _, v in self.values)}])"
        fact = f"intDiv(e.1, {_STRIDE})"
        by_type: dict[str, list[int]] = {}
        for fid, f in enumerate(rules.FACTS, start=1):
            by_type.setdefault(f.type, []).append(fid)
        checks = {
            "int": "isNotNull(toInt64OrNull(e.2))",
            "float": "isNotNull(toFloat64OrNull(e.2))",
            "status": "isNotNull(toUInt16OrNull(e.2))",
            "bool": one_of("e.2", BOOL_WORDS),
        }
        branches = [
            f"has([{', '.join(map(str, by_type[t]))}], {fact}), {check}" for t, check in checks.items() if t in by_type
        ]
        valid = f"multiIf({', '.join(branches)}, e.2 != '')" if branches else "e.2 != ''"
        kinds: dict[tuple[str, ...], list[int]] = {}
        for fid, f in enumerate(rules.FACTS, start=1):
            if f.only_kinds:
                kinds.setdefault(f.only_kinds, []).append(fid)
        only = [
            f"if(has([{', '.join(map(str, fids))}], {fact}), {one_of('_kind', ks)}, 1)" for ks, fids in kinds.items()
        ]
        keep = all_of(["e.1 != 0", valid, *only])
        return f"arraySort(arrayFilter(e -> {keep}, arrayZip({ranks_sql}, {values_sql}))) AS _e"


def _maps_sql(entries: _Entries) -> list[str]:
    """Maps from fact id to its first entry's value, provenance and rank (a map lookup finds the
    first of equal keys)."""
    facts = f"arrayMap(e -> intDiv(e.1, {_STRIDE}), _e)"
    out = [
        f"mapFromArrays({facts}, _e.2) AS _fv",
        f"mapFromArrays({facts}, arrayMap(e -> [{', '.join(map(lit, _HOWS))}][e.1 % 4], _e)) AS _fh",
    ]
    if any(a.plus or a.scale is not None for f in rules.FACTS for a in f.aliases):
        out.append(f"mapFromArrays({facts}, _e.1) AS _fr")
    return out


def _fact_value(fid: int, fact: Fact, entries: _Entries) -> str:
    """A fact's typed value from its first entry; `plus` and `scale` apply when their alias won."""
    value = typed(fact.type, f"_fv[{fid}]", Alias(""))
    plus = [
        (entries.ranks[fact.name, j], " + ".join(f"ifNull(toInt64OrNull(_a[{lit(k)}]), 0)" for k in a.plus))
        for j, a in enumerate(fact.aliases)
        if a.plus and (fact.name, j) in entries.ranks
    ]
    if plus:
        value += f" + multiIf({', '.join(f'_fr[{fid}] = {r}, {s}' for r, s in plus)}, 0)"
    for j, a in enumerate(fact.aliases):
        if a.scale is not None and (fact.name, j) in entries.ranks:
            value = f"{value} * if(_fr[{fid}] = {entries.ranks[fact.name, j]}, {a.scale!r}, 1)"
    if fact.type == "status":
        value = f"multiIf({value} < 100, NULL, {value} < 600, {value}, NULL)"
    return value


def _facts_sql(ctx: Context, entries: _Entries) -> tuple[list[str], list[str]]:
    """`_f_<fact>` (value) and `_p_<fact>` (how it was obtained, '' when absent). A fact with a late
    tail is `_h_`/`_hp_` from its entries, completed by its tail's typed values in order."""
    now, late, tail_terms = [], [], []
    for fid, fact in enumerate(rules.FACTS, start=1):
        tail = [(a, raw) for a in entries.tails.get(fact.name, []) if (raw := alias_sql(a, ctx)) is not None]
        if not tail:
            now += [f"{_fact_value(fid, fact, entries)} AS _f_{fact.name}", f"_fh[{fid}] AS _p_{fact.name}"]
            continue
        now += [f"{_fact_value(fid, fact, entries)} AS _h_{fact.name}", f"_fh[{fid}] AS _hp_{fact.name}"]
        terms = [(f"_t{i}_{fact.name}", a.how) for i, (a, _) in enumerate(tail)]
        tail_terms += [f"{typed(fact.type, raw, a)} AS {t}" for (a, raw), (t, _) in zip(tail, terms, strict=True)]
        late.append(f"coalesce(_h_{fact.name}, {', '.join(t for t, _ in terms)}) AS _f_{fact.name}")
        late.append(
            f"multiIf(isNotNull(_h_{fact.name}), _hp_{fact.name}, "
            + "".join(f"isNotNull({t}), {lit(h)}, " for t, h in terms)
            + f"'') AS _p_{fact.name}"
        )
    return now + tail_terms, late


def derived_outputs() -> list[tuple[Derived, str]]:
    """(carrier rule, kind) of each derived row a record can give; a row's number `_d` is its
    position here, from 1 (0: the record itself)."""
    outputs = [(d, kind) for d in rules.DERIVED for kind in ([k for _, k in d.parts] if d.parts else [d.kind])]
    assert outputs, "the views index constant arrays of derived kinds: keep at least one carrier"
    return outputs


_MESSAGE_PART_TYPES = "'Array(Tuple(parts Array(Tuple(type String))))'"  # malformed JSON reads as []


def derived_sql(ctx: Context) -> str:
    """`_rows`: 0 (the record) then the numbers of the derived rows its carriers give, in order."""
    groups: list[tuple[list[str], list[str]]] = []  # consecutive carriers with the same tests share them
    number = 1
    for d in rules.DERIVED:
        numbers = list(range(number, number + (len(d.parts) or 1)))
        number += len(numbers)
        tests = condition_parts(d.when, ctx) if d.when else []
        if tests is None:
            continue
        tests = tests + ([one_of("_kind", d.kinds)] if d.kinds else [])
        if d.parts:  # one row per message part of a listed type, in order
            types = f"arrayFlatten(JSONExtract(_a[{lit(d.key)}], {_MESSAGE_PART_TYPES}).parts).type"
            expr = (
                f"arrayFilter(n -> n != 0, arrayMap(t -> transform(t, [{', '.join(lit(t) for t, _ in d.parts)}], "
                f"[{', '.join(map(str, numbers))}], 0), {types}))"
            )
        elif d.key.startswith("@"):
            value = value_sql(d.key, ctx)
            if value is None:  # a value this table has not
                continue
            expr = f"if({value} != '', [{numbers[0]}], [])"
        else:
            expr = f"if(mapContains(_a, {lit(d.key)}), [{numbers[0]}], [])"
        if groups and groups[-1][0] == tests:
            groups[-1][1].append(expr)
        else:
            groups.append((tests, [expr]))
    terms = []
    for tests, exprs in groups:
        expr = exprs[0] if len(exprs) == 1 else f"arrayConcat({', '.join(exprs)})"
        for test in reversed(tests):
            expr = f"if({test}, {expr}, [])"
        terms.append(expr)
    return f"arrayConcat([0], {', '.join(terms)}) AS _rows" if terms else "[0] AS _rows"


def stages(ctx: Context) -> list[list[str]]:
    """Select lists, innermost first. ClickHouse expands an alias wherever it is used (and analyses
    each copy), so an expression read in many places is computed in a stage before its readers."""
    lookups, index, kind = _kind_sql(ctx)
    entries = _Entries(ctx)
    facts, late = _facts_sql(ctx, entries)
    out = [
        [*ctx.inner, *ctx.named],
        lookups,
        index,
        kind,
        [entries.sql(ctx)],
        _maps_sql(entries),
        facts + late + tool_helpers_sql() + [tool_exact_sql()],
        [
            f"{category_sql()} AS _f_tool_category",
            f"{target_paths_sql()} AS _f_target_paths",
            f"{dict(ctx.outer)['EventId']} AS _id",
            derived_sql(ctx),
        ],
    ]
    if ctx.named:  # helpers of the raw columns get a stage of their own
        out[0:1] = [list(ctx.inner), list(ctx.named)]
    return [s for s in out if s]


def _column(expr: str) -> str:
    return expr.rsplit(" AS ", 1)[1] if " AS " in expr else expr


def _outer(ctx: Context) -> list[tuple[str, str]]:
    """(agent_events column, expression) of the final SELECT. `_d` is 0 on the record's own row and
    a derived row's number (derived_outputs) on its children, `_n` the row's position (1: the record)."""
    outputs = derived_outputs()
    kinds = f"[{', '.join(lit(k) for _, k in outputs)}]"
    labels = f"[{', '.join(lit(d.label) for d, _ in outputs)}]"
    record = dict(ctx.outer)
    own = {  # a derived row: a child of its carrier, at the carrier's time
        "TimingQuality": f"if(_d, 'inferred', {record['TimingQuality']})",
        "EventId": f"if(_d, concat(_id, ':', {kinds}[_d], ':', toString(_n - 2)), _id)",
        "ParentSpanId": f"if(_d, _id, {record['ParentSpanId']})",
    }
    outer = [(col, own.get(col, expr)) for col, expr in ctx.outer]
    outer += [
        ("TraceId", "TraceId"),
        ("Kind", f"if(_d, {kinds}[_d], _kind)"),
        ("KindRule", f"if(_d, {labels}[_d], _kind_rule)"),
        ("Resolve", "if(_d, '', _resolve)"),
        ("Name", "_name"),
        ("ServiceName", "ServiceName"),
        ("ScopeName", "ScopeName"),
        ("Tenant", f"_r['{TENANT_ATTRIBUTE}']"),
    ]
    # Facts a derived row does not keep are NULL there: tokens, cost and tool calls count once.
    outer += [
        (f.column, f"_f_{f.name}" if f.name in rules.DERIVED_KEEPS else f"if(_d, NULL, _f_{f.name})")
        for f in rules.FACTS
        if f.column
    ]
    facts = [f.name for f in rules.FACTS if f.column]
    kept = [f for f in facts if f in rules.DERIVED_KEEPS]
    outer += [
        ("ToolCategory", "if(_d, NULL, _f_tool_category)"),
        ("TargetPaths", "if(_d, [], _f_target_paths)"),
        ("Provenance", f"if(_d, {provenance_sql(kept, derived=True)}, {provenance_sql(facts)})"),
    ]
    return outer


def view_sql(ctx: Context) -> str:
    select = ",\n    ".join(f"{expr} AS {col}" if expr != col else col for col, expr in _outer(ctx))
    array_join = "\nARRAY JOIN _rows AS _d, arrayEnumerate(_rows) AS _n"
    where = "\nWHERE _kind != ''" if any(r.kind is None for r, _ in compiled_rules(ctx)) else ""
    all_stages = stages(ctx)
    # Each stage passes on the columns a later stage (or the outer SELECT) reads.
    readers = [select + array_join + where]
    for exprs in reversed(all_stages[1:]):
        readers.append(readers[-1] + "\n" + "\n".join(exprs))
    readers.reverse()
    source, available = ctx.table, list[str]()
    for exprs, later in zip(all_stages, readers, strict=True):
        passed = [c for c in available if re.search(rf"\b{re.escape(c)}\b", later)]
        source = f"(\nSELECT\n    {',\n    '.join(passed + exprs)}\nFROM {source}\n)"
        available = passed + [_column(e) for e in exprs]
    # Merging the stages' expressions into one plan step costs more than it saves on every INSERT.
    return (
        f"CREATE MATERIALIZED VIEW IF NOT EXISTS {ctx.mv} TO agent_events AS\nSELECT\n    {select}\n"
        f"FROM {source}{array_join}{where}\nSETTINGS query_plan_merge_expressions = 0\n"
    )


def generated_files() -> dict[str, str]:
    return {ctx.mv: view_sql(ctx) for ctx in CONTEXTS} | {"agent_names_mv": NAMES_VIEW}


def write(sql_dir: Path) -> list[Path]:
    written = []
    for name, sql in generated_files().items():
        path = sql_dir / f"{name}.sql"
        path.write_text(sql)
        written.append(path)
    return written


if __name__ == "__main__":
    for path in write(Path(str(files("harborlight.store").joinpath("sql")))):
        print(f"wrote {path}")
