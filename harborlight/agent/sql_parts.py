"""SQL fragments the agent view compiler assembles: literals, typed fact values, event-name
normalisation, tool categories, target paths and the provenance map. Pure string building."""

from collections.abc import Iterable

from harborlight.agent import rules
from harborlight.agent.rule_types import Alias, FactType
from harborlight.sql_text import literal

lit = literal  # a ClickHouse string literal


def one_of(expr: str, values: tuple[str, ...]) -> str:
    """`expr` equals one of `values` (`=` for one: cheaper to analyse than IN)."""
    if len(values) == 1:
        return f"{expr} = {lit(values[0])}"
    return f"{expr} IN ({', '.join(map(lit, values))})"


# Conditions are nested if()s, never AND / OR: in these deeply nested view queries each AND or OR
# costs more analysis on every INSERT than an if() (measured: ~0.4 ms each, on the traces view's
# ~70 ms). Every test here is a non-Nullable 0/1, so `if(a, b, 0)` is `a AND b` and `if(a, 1, b)`
# is `a OR b`.
def all_of(tests: list[str]) -> str:
    """Every test holds ('1' for none)."""
    expr = tests[-1] if tests else "1"
    for test in reversed(tests[:-1]):
        expr = f"if({test}, {expr}, 0)"
    return expr


def any_of(tests: list[str]) -> str:
    """Some test holds."""
    expr = tests[-1]
    for test in reversed(tests[:-1]):
        expr = f"if({test}, 1, {expr})"
    return expr


def has_sql(keys: tuple[str, ...] | list[str]) -> str:
    """Any of `keys` is present in `_a` (which holds only non-empty attributes)."""
    if len(keys) == 1:
        return f"mapContains(_a, {lit(keys[0])})"
    return f"hasAny(mapKeys(_a), {_array(keys)})"


_TRUE = ("true", "True", "TRUE", "1", "success", "ok", "OK")
_FALSE = ("false", "False", "FALSE", "0", "error", "failure", "failed")
BOOL_WORDS = _TRUE + _FALSE


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
        flags = ", ".join(["true"] * len(_TRUE) + ["false"] * len(_FALSE))
        return f"transform({raw}, {_array(BOOL_WORDS)}, [{flags}], NULL)"  # Nullable(Bool): one call
    if kind == "status":
        return f"toUInt16OrNull({raw})"
    raise ValueError(kind)


def event_name_sql(attributes: str = "_a") -> str:
    """A log record's event name: EventName (unless it is a code location, rules.CODE_LOCATION_EVENT_NAME),
    else attribute event.name (with the producer's prefix restored where it drops it), else a body that
    looks like a dotted event name. `attributes`: the record's attribute map (an absent key and an empty
    value both read '')."""
    ev = f"{attributes}['event.name']"
    restore = [
        all_of(
            [
                f"{ev} != ''",
                f"position({ev}, '.') = 0",
                any_of([f"startsWith(ScopeName, {lit(scope)})", f"Body = concat({lit(head)}, {ev})"]),
            ]
        )
        + f", concat({lit(head)}, {ev})"
        for scope, head in rules.EVENT_PREFIXES
    ]
    dotted = all_of(["length(Body) < 100", "match(Body, '^[a-z_]+\\\\.[a-z_.]+$')"])
    named = all_of(["EventName != ''", f"NOT match(EventName, {lit(rules.CODE_LOCATION_EVENT_NAME)})"])
    return f"multiIf({named}, EventName, {', '.join(restore)}, {ev} != '', {ev}, {dotted}, Body, '')"


def _array(values: Iterable[str]) -> str:
    return f"[{', '.join(map(lit, values))}]"


def tool_helpers_sql() -> list[str]:
    """Columns the category and path rules read: the lower-cased tool name, its MCP tool part
    (`mcp__server__tool` or `server__tool` -> tool), the arguments, and the category the MCP
    keywords give (`other` for a tool that is not an MCP tool)."""
    present = [k for k, v in rules.MCP_MARKERS if v is None]
    markers = [has_sql(present)] + [f"_a[{lit(k)}] = {lit(v)}" for k, v in rules.MCP_MARKERS if v is not None]
    keywords = "".join(
        f"multiSearchAny(_tool_part, {_array(words)}), {lit(cat)}, " for cat, words in rules.MCP_KEYWORDS
    )
    return [
        "lower(ifNull(_f_tool_name, '')) AS _tn",
        # One regex, not a chain of helpers: each function call costs analysis on every INSERT.
        "replaceRegexpOne(_tn, '(?s)^(?:mcp__)?.*?__', '') AS _tool_part",
        f"{unwrapped_arguments_sql("ifNull(_f_arguments, '')")} AS _args",
        f"if({any_of(["position(_tn, '__') > 0", *markers])}, multiIf({keywords}'other'), 'other') AS _by_keyword",
    ]


def tool_exact_sql() -> str:
    """`_exact`: the category of the exact (MCP-stripped) tool name, '' if none; one hash lookup."""
    names = [(name, cat.name) for cat in rules.TOOL_CATEGORIES for name in cat.names]
    return f"transform(_tool_part, {_array(n for n, _ in names)}, {_array(c for _, c in names)}, '') AS _exact"


def category_sql() -> str:
    """Tool category: exact names looked up once (one hash lookup, `transform`), then name
    prefixes, editor commands (one lookup), and keywords for MCP tools. Exact names are tried on
    the MCP tool part, which for a plain tool is its whole name."""
    prefixes = [
        f"startsWith(_tool_part, {lit(p)}), {lit(cat.name)}" for cat in rules.TOOL_CATEGORIES for p in cat.prefixes
    ]
    commands: dict[str, str] = {}
    for cat, cmds in rules.EDITOR_COMMANDS:
        for cmd in cmds:
            commands.setdefault(cmd, cat)
    editor = (
        f"{one_of('_tn', rules.EDITOR_TOOLS)}, transform(JSONExtractString(_args, 'command'), "
        f"{_array(commands)}, {_array(commands.values())}, _by_keyword)"
    )
    branches = ", ".join(["_a['gen_ai.operation.name'] = 'plan', 'plan'", "_exact != '', _exact", *prefixes, editor])
    return f"if(isNull(_f_tool_name), NULL, multiIf({branches}, _by_keyword))"


_PATH_END = '([^\\n"\\\\]+)'  # a path runs to a newline, a quote or a JSON escape


def unwrapped_arguments_sql(raw: str) -> str:
    """The tool's own arguments where a wrapper holds them (rules.ARGUMENT_WRAPPERS), else `raw`."""
    branches = []
    for inner, others in rules.ARGUMENT_WRAPPERS:
        known = _array((inner, *others))
        branches.append(
            f"JSONType({raw}, {lit(inner)}) = 'Object' AND "
            f"arrayAll(k -> has({known}, k), JSONExtractKeys({raw})) AND "
            f"arrayAll(k -> JSONType({raw}, k) != 'Array' OR JSONLength({raw}, k) = 0, JSONExtractKeys({raw})), "
            f"JSONExtractRaw({raw}, {lit(inner)})"
        )
    return f"multiIf({', '.join(branches)}, {raw})"


def target_paths_sql() -> str:
    """Paths named in the tool arguments (JSON keys, apply_patch headers, a bare path) or a path attribute."""
    attrs = f"[{', '.join(f'_a[{lit(k)}]' for k in rules.PATH_ATTRIBUTES)}, extract(_args, {lit(rules.BARE_PATH)})]"
    keys = f"arrayMap(k -> JSONExtractString(_args, k), {_array(rules.PATH_KEYS)})"
    headers = [f"extractAll(_args, {lit(h + _PATH_END)})" for h in rules.PATCH_HEADERS]
    patches = f"if(position(_args, '*** ') > 0, arrayConcat({', '.join(headers)}), [])"
    paths = f"arrayDistinct(arrayFilter(x -> x != '', arrayConcat({attrs}, {keys}, {patches})))"
    return f"if(_kind IN ('tool', 'subagent'), {paths}, [])"


def provenance_sql(facts: list[str], derived: bool = False) -> str:
    """Map fact -> measured | derived | inferred; '' for a fact the row lacks (a missing key reads
    as '' too, and building the map without a filter lambda is cheaper on every INSERT).
    A derived child record's kind is 'derived', and it has no tool facts."""
    pairs = [f"{lit(f)}, _p_{f}" for f in facts]
    if derived:
        return f"map({', '.join(pairs + ["'kind', 'derived'"])})"
    pairs.append("'kind', 'inferred'")
    pairs.append("'tool_category', if(isNull(_f_tool_category), '', 'inferred')")
    pairs.append("'target_paths', if(empty(_f_target_paths), '', 'derived')")
    return f"map({', '.join(pairs)})"
