"""Resolves the agent events of the trials whose events changed into resolved_events, so every reader selects
plain rows (harborlight/read/statements/resolved_sql.py says what resolving means). The keeper runs it before it
derives the trials' rows (harborlight/summaries/refresh.py), which then read the resolved rows too.

A change of the resolution itself (the twins or identity rule, the columns, the tree's kinds) is told by its hash: a
store whose newest recorded hash (harborlight_resolved_rule) differs has every trial resolved again (`rule_changed`).
"""

import hashlib
import inspect
from collections.abc import Sequence

from clickhouse_connect.driver.client import Client

from harborlight.agent.identity import parameters
from harborlight.agent.twins import FORMS, NAMED
from harborlight.read.statements import trace_tree
from harborlight.read.statements.call_rollups_sql import ROLL_UP, ROLLED_GONE
from harborlight.read.statements.resolved_sql import EXTRA_COLUMNS, FORM, GONE, resolve
from harborlight.summaries.tree_kinds import STATEMENTS as TREE_STATEMENTS
from harborlight.summaries.tree_kinds import write_tree_kinds

_columns: dict[int, list[str]] = {}  # agent_events' columns as resolved_events has them, per connection


def _agent_columns(client: Client) -> list[str]:
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
    statement = resolve(_agent_columns(client), form)
    client.command(statement.text, parameters=statement.bind({**versioned, **named}))
    client.command(GONE.text, parameters=GONE.bind(versioned))
    write_tree_kinds(client, versioned, version)
    for rollup in (ROLL_UP, ROLLED_GONE):
        client.command(rollup.text, parameters=rollup.bind(versioned))


def rule_hash(client: Client) -> str:
    """The hash of the resolution as this code runs it (in every form), its tree's kind rule included."""
    statements = "".join(resolve(_agent_columns(client), form).text for form in FORMS) + GONE.text
    statements += TREE_STATEMENTS + inspect.getsource(trace_tree) + ROLL_UP.text + ROLLED_GONE.text
    return "harborlight:" + hashlib.sha256(statements.encode()).hexdigest()[:16]


def rule_changed(client: Client) -> bool:
    """Whether the stored resolved rows were written by another resolution than this code's (or none)."""
    rows = client.query("SELECT argMax(Hash, At) FROM harborlight_resolved_rule").result_rows
    return not rows or rows[0][0] != rule_hash(client)


def mark_rule(client: Client) -> None:
    """Records this code's resolution as the one the stored rows follow (once every trial is resolved by it)."""
    client.command(
        "INSERT INTO harborlight_resolved_rule (Hash) VALUES ({hash:String})", parameters={"hash": rule_hash(client)}
    )
