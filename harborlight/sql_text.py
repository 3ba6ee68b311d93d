"""What every statement of the code base shares: one way to write a string literal, the tenant's names, and the
fragment a statement is composed of, which knows the parameters it needs."""

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

# The resource attribute a raw row's tenant is stamped as (with tenants on), and the expression that reads it;
# the agent layer's tables carry it as their Tenant column.
TENANT_ATTRIBUTE = "harborlight.tenant"
RAW_TENANT = f"ResourceAttributes['{TENANT_ATTRIBUTE}']"


def literal(value: str) -> str:
    """A ClickHouse string literal of `value` (backslashes and quotes escaped)."""
    return "'" + value.replace("\\", "\\\\").replace("'", "\\'") + "'"


def identifier(name: str) -> str:
    """A ClickHouse quoted identifier of `name` (backslashes and backticks escaped): a column read back from the
    store's own tables, whatever it is called."""
    return "`" + name.replace("\\", "\\\\").replace("`", "\\`") + "`"


def literals(values: Iterable[str]) -> str:
    """A ClickHouse tuple of string literals, as `x IN` takes it. One value keeps its comma, `('a',)`: the
    spelling the stored statements have always had (and the resolution's hash is taken over)."""
    items = [literal(v) for v in values]
    return "(" + ", ".join(items) + ("," if len(items) == 1 else "") + ")"


# A query parameter as ClickHouse binds it, `{name:Type}` (the type may nest parentheses, never braces), read left
# to right past what is no placeholder though it may look like one or hide one: string literals, quoted
# identifiers and comments (a comment's apostrophe opens no string).
_TOKENS = re.compile(
    r"'(?:[^'\\]|\\.)*'|`[^`]*`|\"[^\"]*\"|--[^\n]*|/\*.*?\*/|\{([A-Za-z_][A-Za-z0-9_]*):([^{}]+)\}", re.DOTALL
)


class ParameterError(ValueError):
    """A statement run with a parameter it does not name, or without one it does."""


@dataclass(frozen=True)
class Sql:
    """A fragment of SQL (a condition, a subquery, a whole statement) with the parameters its `{name:Type}`
    placeholders need. Fragments compose by their text, so a statement made of fragments needs exactly the
    parameters they needed: whoever runs it binds them by name (`bind`), and a caller's condition never travels
    without the parameters it asks for."""

    text: str

    @property
    def parameters(self) -> dict[str, str]:
        """name -> ClickHouse type of each parameter, in order of first use."""
        found: dict[str, str] = {}
        for name, kind in _TOKENS.findall(self.text):
            if name and found.setdefault(name, kind) != kind:
                raise ParameterError(f"parameter {name} is bound as {found[name]} and as {kind} in one statement")
        return found

    def bind(self, values: Mapping[str, object]) -> dict[str, object]:
        """The values to run the statement with: one for each of its parameters, no other."""
        needed = self.parameters
        missing = [n for n in needed if n not in values]
        unexpected = sorted(n for n in values if n not in needed)
        if missing or unexpected:
            said = [f"no value for {', '.join(missing)}"] if missing else []
            said += [f"{', '.join(unexpected)} not among its parameters"] if unexpected else []
            raise ParameterError(f"statement parameters: {'; '.join(said)} (it needs {', '.join(needed) or 'none'})")
        return {n: values[n] for n in needed}
