"""SQL fragments the agent view compiler assembles: literals, typed fact values, event-name
normalisation, tool categories, target paths and the provenance map. Pure string building."""

from storage import agent_rules as rules
from storage.agent_rule_types import Alias, FactType


def lit(value: str) -> str:
    """A ClickHouse string literal."""
    return "'" + value.replace("\\", "\\\\").replace("'", "\\'") + "'"


def _in(expr: str, values: tuple[str, ...]) -> str:
    return f"{expr} IN ({', '.join(map(lit, values))})"


_TRUE = ("true", "True", "TRUE", "1", "success", "ok", "OK")
_FALSE = ("false", "False", "FALSE", "0", "error", "failure", "failed")


def typed(kind: FactType, raw: str, alias: Alias) -> str:
    """The value of a raw attribute string as a Nullable of the fact's type ('' means absent)."""
    if kind == "string":
        return f"nullIf({raw}, '')"
    if kind == "int":
        value = f"toInt64OrNull({raw})"
        return " + ".join([value, *(f"ifNull(toInt64OrNull(_a[{lit(k)}]), 0)" for k in alias.plus)])
    if kind == "float":
        value = f"toFloat64OrNull({raw})"
        return f"{value} * {alias.scale!r}" if alias.scale is not None else value
    if kind == "bool":
        return (f"multiIf({_in(raw, _TRUE)}, CAST(true, 'Nullable(Bool)'), {_in(raw, _FALSE)}, "
                "CAST(false, 'Nullable(Bool)'), CAST(NULL, 'Nullable(Bool)'))")
    if kind == "status":
        value = f"toUInt16OrNull({raw})"
        return f"if({value} BETWEEN 100 AND 599, {value}, NULL)"
    raise ValueError(kind)


def event_name_sql() -> str:
    """A log record's event name: EventName, else attribute event.name (with the producer's prefix
    restored where it drops it), else a body that looks like a dotted event name."""
    ev = "LogAttributes['event.name']"
    restore = [
        f"{ev} != '' AND position({ev}, '.') = 0 AND (startsWith(ScopeName, {lit(scope)}) "
        f"OR Body = concat({lit(head)}, {ev})), concat({lit(head)}, {ev})"
        for scope, head in rules.EVENT_PREFIXES
    ]
    return (f"multiIf(EventName != '', EventName, {', '.join(restore)}, {ev} != '', {ev}, "
            "length(Body) < 100 AND match(Body, '^[a-z_]+\\\\.[a-z_.]+$'), Body, '')")


def _category_tests(name: str) -> list[tuple[str, str]]:
    """(condition, category literal) per category, on the tool name expression `name`."""
    out = []
    for cat in rules.TOOL_CATEGORIES:
        tests = [_in(name, cat.names)] + [f"startsWith({name}, {lit(p)})" for p in cat.prefixes]
        out.append((" OR ".join(tests), lit(cat.name)))
    return out


def category_sql() -> str:
    """Tool category from the tool name (and, for editor tools, the `command` argument)."""
    tn = "lower(assumeNotNull(_f_tool_name))"
    stripped = f"if(startsWith({tn}, 'mcp__'), substring({tn}, 6), {tn})"
    part = f"if(position({stripped}, '__') > 0, substring({stripped}, position({stripped}, '__') + 2), {stripped})"
    markers = [f"_a[{lit(k)}] != ''" if v is None else f"_a[{lit(k)}] = {lit(v)}" for k, v in rules.MCP_MARKERS]
    mcp = f"(position({tn}, '__') > 0 OR {' OR '.join(markers)})"
    command = "JSONExtractString(ifNull(_f_arguments, ''), 'command')"
    editor = [f"{_in(tn, rules.EDITOR_TOOLS)} AND {_in(command, cmds)}, {lit(cat)}"
              for cat, cmds in rules.EDITOR_COMMANDS]
    exact = [f"{test}, {cat}" for test, cat in _category_tests(tn)]
    mcp_exact = [f"{mcp} AND ({test}), {cat}" for test, cat in _category_tests(part)]
    keywords = [f"{mcp} AND multiSearchAny({part}, [{', '.join(map(lit, words))}]), {lit(cat)}"
                for cat, words in rules.MCP_KEYWORDS]
    plan_op = "_a['gen_ai.operation.name'] = 'plan', 'plan'"
    branches = ", ".join([plan_op, *exact, *editor, *mcp_exact, *keywords])
    return f"if(isNull(_f_tool_name), NULL, multiIf({branches}, 'other'))"


def target_paths_sql() -> str:
    """Paths named in the tool arguments (JSON keys, apply_patch headers) or a path attribute."""
    args = "ifNull(_f_arguments, '')"
    keys = [f"JSONExtractString({args}, {lit(k)})" for k in rules.PATH_KEYS]
    attrs = [f"_a[{lit(k)}]" for k in rules.PATH_ATTRIBUTES]
    headers = [f"extractAll({args}, {lit(h + '([^\\n\"\\\\]+)')})" for h in rules.PATCH_HEADERS]
    patches = f"if(position({args}, '*** ') > 0, arrayConcat({', '.join(headers)}), [])"
    paths = f"arrayDistinct(arrayFilter(x -> x != '', arrayConcat([{', '.join(attrs + keys)}], {patches})))"
    return f"if(_kind IN ('tool', 'subagent'), {paths}, [])"


def provenance_sql(facts: list[str]) -> str:
    """Map fact -> measured | derived | inferred, for the facts present on the row."""
    pairs = [f"{lit(f)}, _p_{f}" for f in facts]
    pairs.append("'kind', 'inferred'")
    pairs.append("'tool_category', if(isNull(_f_tool_category), '', 'inferred')")
    pairs.append("'target_paths', if(empty(_f_target_paths), '', 'derived')")
    return f"mapFilter((k, v) -> v != '', map({', '.join(pairs)}))"
