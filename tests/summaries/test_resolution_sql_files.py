"""The resolution's statements are checked in as SQL (harborlight/summaries/sql/): each file is what the keeper runs
on a store of this code's schema, so a change of the twins, identity, tree or rollup rule shows in a diff."""

import importlib.util

from harborlight.summaries.resolve import _code, agent_columns
from harborlight.summaries.sql_files import DIRECTORY, files_text


def test_the_checked_in_statements_are_the_ones_the_keeper_runs(server):
    expected = files_text(agent_columns(server.store.client))
    checked_in = {p.name: p.read_text() for p in DIRECTORY.glob("*.sql")}
    assert set(checked_in) == set(expected), "run `python -m harborlight.summaries.sql_files`"
    for name, text in expected.items():
        assert checked_in[name] == text, f"{name} differs: run `python -m harborlight.summaries.sql_files`"


def _module(path, text: str):
    path.write_text(text)
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_a_prose_edit_of_the_tree_rule_resolves_no_store_again(tmp_path):
    """The hash takes the tree rule's code (harborlight/read/statements/trace_tree.py), not its comments or
    docstrings: editing them re-resolves (and compacts) no store; editing the code does."""
    code = 'def kind(event):\n    """The kind."""\n    return "group"  # a group\n'
    prose = '"""A module."""\n\n\ndef kind(event):\n    """The kind a tree tells."""\n    # again\n    return "group"\n'
    other = 'def kind(event):\n    """The kind."""\n    return "session"\n'
    first = _code(_module(tmp_path / "a.py", code))
    assert _code(_module(tmp_path / "b.py", prose)) == first
    assert _code(_module(tmp_path / "c.py", other)) != first
