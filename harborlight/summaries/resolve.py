"""Resolves the agent events of the trials whose events changed into resolved_events, so every reader selects
plain rows (harborlight/read/statements/resolved_sql.py says what resolving means). The keeper runs it before it
derives the trials' rows (harborlight/summaries/refresh.py), which then read the resolved rows too.

A change of the resolution itself (the twins or identity rule, the columns, the tree's kinds, the rollup) is told by
its hash: a store whose newest recorded hash (harborlight_resolved_rule) differs has every trial resolved again
(`rule_changed`). Its statements, as a store of this code's schema runs them, are checked in under
harborlight/summaries/sql/ (`python -m harborlight.summaries.sql_files` writes them), so a change of the rule shows
in a diff as the SQL it runs.
"""

import ast
import hashlib
import inspect
from collections.abc import Sequence

from clickhouse_connect.driver.client import Client

from harborlight.agent.identity import parameters
from harborlight.agent.twins import NAMED, PLAIN, TWINS
from harborlight.read.statements import trace_tree
from harborlight.read.statements.call_rollups_sql import ROLL_UP, ROLLED_GONE
from harborlight.read.statements.resolved_sql import EXTRA_COLUMNS, FORM, GONE, resolve
from harborlight.read.statements.tree_kinds_sql import CHANGEABLE, EVENTS, REKIND
from harborlight.summaries.tree_kinds import write_tree_kinds

# The tables a resolution writes: a resolution anew writes every row of them again.
RESOLVED_TABLES = ("resolved_events", "call_rollups")

_columns: dict[int, list[str]] = {}  # agent_events' columns as resolved_events has them, per connection


def agent_columns(client: Client) -> list[str]:
    """agent_events' columns as the store's resolved_events has them (one DESCRIBE per connection)."""
    key = id(client)
    if key not in _columns:
        stored = [r[0] for r in client.query("DESCRIBE TABLE resolved_events").result_rows if r[2] == ""]
        _columns[key] = [c for c in stored if c not in EXTRA_COLUMNS]
    return _columns[key]


def resolve_trials(client: Client, tenant: str, names: Sequence[str], version: int) -> None:
    """Writes the resolved rows of the trials and traces `names` ('': the records stored under no name) at
    `version`, deletes the rows an earlier resolution wrote for them that this one did not, writes the kinds
    their traces' trees tell (harborlight/summaries/tree_kinds.py) over the rules', and rolls their calls up
    (harborlight/read/statements/call_rollups_sql.py)."""
    scope = {"tenant": tenant, "trials": [n for n in names if n], "nameless": "" in names}
    form, renames, runs = client.query(FORM.text, parameters=FORM.bind(scope)).result_rows[0]
    versioned = {**scope, "version": version}
    # the renames and earlier runs are parameters of the forms that name the rows only
    named = parameters(renames, runs) if form & NAMED else {}
    statement = resolve(agent_columns(client), form)
    client.command(statement.text, parameters=statement.bind({**versioned, **named}))
    client.command(GONE.text, parameters=GONE.bind(versioned))
    write_tree_kinds(client, versioned, version)
    for rollup in (ROLL_UP, ROLLED_GONE):
        client.command(rollup.text, parameters=rollup.bind(versioned))


# The statement files' names, of the resolution's forms (harborlight/agent/twins.py).
_FORM_FILES = {PLAIN: "resolve_plain", TWINS: "resolve_twins", NAMED: "resolve_named", TWINS | NAMED: "resolve_both"}


def statements(columns: list[str]) -> dict[str, str]:
    """Every statement of a resolution by the name of its file under harborlight/summaries/sql/, in the order the
    keeper runs them, with `columns` agent_events' (as resolved_events has them)."""
    return {
        "form": FORM.text,
        **{name: resolve(columns, form).text for form, name in _FORM_FILES.items()},
        "gone": GONE.text,
        "tree_changeable": CHANGEABLE,
        "tree_events": EVENTS,
        "tree_rekind": REKIND,
        "roll_up": ROLL_UP.text,
        "rolled_gone": ROLLED_GONE.text,
    }


def _code(module: object) -> str:
    """A module's code without its comments and docstrings: an edit of its prose resolves no store again."""
    tree = ast.parse(inspect.getsource(module))  # type: ignore[arg-type]
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        first = body[0] if isinstance(body, list) and body else None
        if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
            node.body = body[1:] or [ast.Pass()]  # type: ignore[attr-defined,index]
    return ast.dump(tree)


def rule_hash(client: Client) -> str:
    """The hash of the resolution as this code runs it: its statements, and the tree's kind rule in Python."""
    text = "".join(statements(agent_columns(client)).values()) + _code(trace_tree)
    return "harborlight:" + hashlib.sha256(text.encode()).hexdigest()[:16]


def rule_changed(client: Client) -> bool:
    """Whether the stored resolved rows were written by another resolution than this code's (or none)."""
    rows = client.query("SELECT argMax(Hash, At) FROM harborlight_resolved_rule").result_rows
    return not rows or rows[0][0] != rule_hash(client)


def mark_rule(client: Client) -> None:
    """Records this code's resolution as the one the stored rows follow (once every trial is resolved by it)."""
    client.command(
        "INSERT INTO harborlight_resolved_rule (Hash) VALUES ({hash:String})", parameters={"hash": rule_hash(client)}
    )
