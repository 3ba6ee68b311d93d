"""Compiles the agent convention table (storage/agent_rules.py) into ClickHouse SQL: one
materialized view per raw table (otel_traces, otel_logs) into agent_events.

The generated statements live in storage/sql/agent_events_{traces,logs}_mv.sql so that migrations
apply them like any other DDL and Grafana authors can read them; a test keeps them in sync.
Regenerate with `python -m storage.agent_compile`.
"""

from importlib.resources import files
from pathlib import Path

from storage import agent_rules as rules
from storage.agent_rule_types import Alias, Fact, KindRule, When
from storage.agent_sources import CONTEXTS, Context
from storage.agent_sql_parts import (
    category_sql, lit, provenance_sql, target_paths_sql, tool_exact_sql, tool_helpers_sql, typed,
)


def condition(when: When, ctx: Context) -> str | None:
    """SQL for `when` on this table, 'true' when it always holds, None when it never can."""
    if when.source and when.source != ctx.source:
        return None
    parts: list[str] = []
    if when.names:
        parts.append(f"_name IN ({', '.join(map(lit, when.names))})")
    if when.prefixes:
        parts.append("(" + " OR ".join(f"startsWith(_name, {lit(p)})" for p in when.prefixes) + ")")
    if when.suffixes:
        parts.append("(" + " OR ".join(f"endsWith(_name, {lit(s)})" for s in when.suffixes) + ")")
    for key, values in when.attrs:
        parts.append(f"_a[{lit(key)}] IN ({', '.join(map(lit, values))})")
    for keys in when.has:
        parts.append("(" + " OR ".join(f"_a[{lit(k)}] != ''" for k in keys) + ")")
    if when.scope:
        parts.append(f"ScopeName = {lit(when.scope)}")
    if when.service_prefix:
        parts.append(f"startsWith(ServiceName, {lit(when.service_prefix)})")
    if when.min_value:
        key, least = when.min_value
        parts.append(f"toInt64OrZero(_a[{lit(key)}]) >= {int(least)}")
    for wanted, expr in ((when.correlated, ctx.correlated), (when.root, ctx.root)):
        if wanted is not None:
            if expr is None:
                return None
            parts.append(expr if wanted else f"NOT ({expr})")
    return " AND ".join(parts) or "true"


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


def _kind_sql(ctx: Context) -> list[str]:
    compiled = compiled_rules(ctx)
    branches = ", ".join(f"{cond}, {i}" for i, (_, cond) in enumerate(compiled[:-1], start=1))
    index = f"multiIf({branches}, {len(compiled)})" if branches else "1"
    kinds = ", ".join(lit(r.kind or "") for r, _ in compiled)
    labels = ", ".join(lit(r.label) for r, _ in compiled)
    resolves = ", ".join(lit(r.resolve) for r, _ in compiled)
    root = ctx.root or "true"
    return [
        f"toUInt16({index}) AS _rule",
        f"[{kinds}][_rule] AS _kind_raw",
        f"[{labels}][_rule] AS _kind_rule",
        f"[{resolves}][_rule] AS _resolve",
        f"multiIf(_resolve = 'agent', if({root}, 'session', 'subagent'), "
        f"_resolve = 'root_session', if({root}, 'session', 'group'), _kind_raw) AS _kind",
    ]


def _raw(alias: Alias, ctx: Context) -> str | None:
    if alias.key.startswith("resource:"):
        raw = f"_r[{lit(alias.key.removeprefix('resource:'))}]"
    elif alias.key.startswith("@name_after:"):
        head = alias.key.removeprefix("@name_after:")
        raw = f"if(startsWith(_name, {lit(head)}), substring(_name, {len(head) + 1}), '')"
    elif alias.key.startswith("@"):
        raw = ctx.columns[alias.key[1:]]
        if raw is None:
            return None
    else:
        raw = f"_a[{lit(alias.key)}]"
    if alias.when is not None:
        cond = condition(alias.when, ctx)
        if cond is None:
            return None
        raw = raw if cond == "true" else f"if({cond}, {raw}, '')"
    return raw


def _groups(fact: Fact, ctx: Context) -> list[tuple[str, str]]:
    """Runs of consecutive aliases obtained the same way: (how, SQL of the first value present)."""
    out: list[tuple[str, list[str]]] = []
    for alias in fact.aliases:
        raw = _raw(alias, ctx)
        if raw is None:
            continue
        value = typed(fact.type, raw, alias)
        if out and out[-1][0] == alias.how:
            out[-1][1].append(value)
        else:
            out.append((alias.how, [value]))
    return [(how, values[0] if len(values) == 1 else f"coalesce({', '.join(values)})") for how, values in out]


def fact_group_sql(fact: Fact, ctx: Context) -> list[str]:
    """`_g<i>_<fact>`: the value from the i-th run of aliases (NULL outside `only_kinds`)."""
    out = []
    for i, (_, value) in enumerate(_groups(fact, ctx)):
        if fact.only_kinds:
            value = f"if(_kind IN ({', '.join(map(lit, fact.only_kinds))}), {value}, NULL)"
        out.append(f"{value} AS _g{i}_{fact.name}")
    return out


def fact_sql(fact: Fact, ctx: Context) -> list[str]:
    """`_f_<fact>` (the value) and `_p_<fact>` (how it was obtained, '' when absent)."""
    groups = [(how, f"_g{i}_{fact.name}") for i, (how, _) in enumerate(_groups(fact, ctx))]
    value = groups[0][1] if len(groups) == 1 else f"coalesce({', '.join(g for _, g in groups)})"
    if fact.type == "status":
        value = f"if({value} BETWEEN 100 AND 599, {value}, NULL)"
    how = "multiIf(" + ", ".join(f"isNotNull({g}), {lit(h)}" for h, g in groups) + ", '')"
    return [f"{value} AS _f_{fact.name}", f"{how} AS _p_{fact.name}"]


def _depends_on_facts(fact: Fact, ctx: Context) -> bool:
    return any(a.key.startswith("@") and "_f_" in (ctx.columns.get(a.key[1:]) or "") for a in fact.aliases)


def stages(ctx: Context) -> list[list[str]]:
    """Select lists, innermost first. ClickHouse expands an alias wherever it is used, and the
    view's query is analysed again on every INSERT, so an expression read in many places (the rule
    index, the kind, the tool name) is computed in a stage before its readers."""
    early = [f for f in rules.FACTS if not _depends_on_facts(f, ctx)]
    late = [f for f in rules.FACTS if _depends_on_facts(f, ctx)]
    kind = _kind_sql(ctx)
    return [
        [*ctx.inner, *ctx.named],
        kind[:1],
        kind[1:],
        [e for f in early for e in fact_group_sql(f, ctx) + fact_sql(f, ctx)],
        tool_helpers_sql() + [tool_exact_sql()]
        + [e for f in late for e in fact_group_sql(f, ctx) + fact_sql(f, ctx)]
        + [f"{category_sql()} AS _f_tool_category", f"{target_paths_sql()} AS _f_target_paths"],
    ]


def view_sql(ctx: Context) -> str:
    outer = [*ctx.outer, ("TraceId", "TraceId"), ("Kind", "_kind"), ("KindRule", "_kind_rule"),
             ("Resolve", "_resolve"), ("Name", "_name"), ("ServiceName", "ServiceName"), ("ScopeName", "ScopeName"),
             ("Tenant", "_r['harborlight.tenant']")]
    outer += [(f.column, f"_f_{f.name}") for f in rules.FACTS if f.column]
    outer += [("ToolCategory", "_f_tool_category"), ("TargetPaths", "_f_target_paths"),
              ("Provenance", provenance_sql([f.name for f in rules.FACTS if f.column]))]
    source = ctx.table
    for i, exprs in enumerate(stages(ctx)):
        star = "" if i == 0 else "*,\n    "
        source = f"(\nSELECT\n    {star}{',\n    '.join(exprs)}\nFROM {source}\n)"
    select = ",\n    ".join(f"{expr} AS {col}" if expr != col else col for col, expr in outer)
    where = "\nWHERE _kind != ''" if any(r.kind is None for r, _ in compiled_rules(ctx)) else ""
    # Merging the stages' expressions into one plan step costs more than it saves on every INSERT.
    return (f"CREATE MATERIALIZED VIEW IF NOT EXISTS {ctx.mv} TO agent_events AS\nSELECT\n    {select}\n"
            f"FROM {source}{where}\nSETTINGS query_plan_merge_expressions = 0\n")



def generated_files() -> dict[str, str]:
    return {ctx.mv: view_sql(ctx) for ctx in CONTEXTS}


def write(sql_dir: Path) -> list[Path]:
    written = []
    for name, sql in generated_files().items():
        path = sql_dir / f"{name}.sql"
        path.write_text(sql)
        written.append(path)
    return written


if __name__ == "__main__":
    for path in write(Path(str(files("storage").joinpath("sql")))):
        print(f"wrote {path}")
