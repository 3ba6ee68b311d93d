"""Every command's --help says what it does and ends with examples, and every example is a command line
the parser accepts for that same command: an example that names a removed flag fails here."""

import argparse

import pytest

from harborlight.cli.main import build_parser, main
from tests.support.shell import command_words


def _commands(parser: argparse.ArgumentParser, path: tuple[str, ...] = ()):
    """(path, parser) of every runnable command: `serve`, `import otlp`, ..."""
    subparsers = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    if not subparsers:
        yield path, parser
    for action in subparsers:
        for name, child in action.choices.items():
            yield from _commands(child, (*path, name))


PARSER = build_parser()
COMMANDS = dict(_commands(PARSER))


def _help(capsys, *argv: str) -> str:
    with pytest.raises(SystemExit) as exited:
        main([*argv, "--help"])
    out, err = capsys.readouterr()
    assert (exited.value.code, err) == (0, "")
    return out


def test_every_command_is_listed_with_a_summary(capsys):
    listed = _help(capsys)
    tops = {path[0] for path in COMMANDS}
    assert tops >= {"serve", "jobs", "trial", "trace", "spans", "report", "compare", "watch", "import", "export-job"}
    for top in tops:
        assert f"    {top}" in listed and PARSER._subparsers._group_actions[0].choices[top].description


@pytest.mark.parametrize("path", sorted(COMMANDS), ids=" ".join)
def test_help_ends_with_examples_the_parser_accepts(capsys, path):
    out = _help(capsys, *path)
    assert COMMANDS[path].description in " ".join(out.split())
    examples = out.split("\nexamples:\n", 1)[1].strip().splitlines()
    assert examples
    for example in examples:
        words = command_words(example)
        assert words[: 1 + len(path)] == ["harborlight", *path], example
        args = PARSER.parse_args(words[1:])
        assert args.run is COMMANDS[path].get_default("run"), example
