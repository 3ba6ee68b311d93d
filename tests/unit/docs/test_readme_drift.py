"""The README and docs/ say only what the code does: every flag, route and command they show exists.

Read from the documents' own text (tables, code blocks, inline code), checked against the argument parser
and the app's routes, so a renamed flag or route fails here before a reader meets it.
"""

import contextlib
import io
import re
from pathlib import Path

import pytest

from harborlight.cli.main import build_parser
from tests.support.paths import REPO
from tests.support.shell import command_words

ROOT = REPO
DOCUMENTS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
_FENCE = re.compile(r"^\s*```(\w*)")
_INLINE = re.compile(r"`([^`\n]+)`")
_ROUTE = re.compile(r"(?:GET|POST|PUT|DELETE) (/[^\s`?|\[]+)|`(/(?:api|v1)/[^\s`?|\[]*|/healthz|/metrics)`")
_PLACEHOLDER = re.compile(r"\{[^}]*\}")


def _text(path: Path) -> str:
    return path.read_text()


def _split(text: str) -> tuple[list[str], str]:
    """The lines of shell code blocks, and the prose without any code block."""
    shell, prose, fence = [], [], None
    for line in text.splitlines():
        if match := _FENCE.match(line):
            fence = None if fence is not None else match.group(1)
        elif fence is None:
            prose.append(line)
        elif fence in ("", "sh", "bash", "console"):
            shell.append(line)
    return shell, "\n".join(prose)


def _commands(text: str) -> list[str]:
    """Every `harborlight ...` command line shown, as a reader would type it (optional parts left out)."""
    shell, prose = _split(text)
    lines = shell + _INLINE.findall(prose)
    commands = []
    for line in lines:
        line = line.strip().removeprefix("$ ")
        if not line.startswith("harborlight "):
            continue
        line = re.sub(r"\s+#.*$", "", line)  # a shell comment
        while re.search(r"\[[^\[\]]*\]", line):  # optional parts, nested ones too
            line = re.sub(r"\s*\[[^\[\]]*\]", "", line)
        commands.append(line.replace("...", "").strip())
    return commands


def _served_routes() -> set[str]:
    from fastapi import FastAPI

    from harborlight.api.router import api_router
    from harborlight.ingest.http_routes import otlp_router

    app = FastAPI()
    app.include_router(api_router())
    app.include_router(otlp_router(None, None, 1))  # routes only: never called here
    return {_PLACEHOLDER.sub("{}", path) for path in app.openapi()["paths"]} | {"/docs", "/redoc", "/openapi.json"}


def _shown_routes(text: str) -> set[str]:
    found = {a or b for a, b in _ROUTE.findall(text)}
    # `/api/jobs`, `/api/jobs/{job}` in one cell: each path on its own
    routes = {_PLACEHOLDER.sub("{}", r.rstrip(".,:;)")) for r in found}
    return {r for r in routes if not r.endswith("/")}  # `/api/...`: the prefix, not a route


@pytest.mark.parametrize("document", DOCUMENTS, ids=lambda p: p.name)
def test_every_command_shown_parses(document):
    parser = build_parser()
    names = parser._subparsers._group_actions[0].choices
    for command in _commands(_text(document)):
        words = command_words(command)
        if len(words) == 2:  # the command named in prose (`harborlight watch`): it exists
            assert words[1] in names, f"{document.name} names a command there is not: `{command}`"
            continue
        try:
            with contextlib.redirect_stdout(io.StringIO()):  # `--help` prints and exits 0
                parser.parse_args(words[1:])
        except SystemExit as exc:
            if exc.code == 0:
                continue
            pytest.fail(f"{document.name}: `{command}` does not parse (exit {exc.code})")


def test_every_route_served_is_in_the_api_reference():
    missing = _served_routes() - _shown_routes(_text(ROOT / "docs" / "api.md"))
    assert not missing, f"docs/api.md leaves out routes the app serves: {sorted(missing)}"


@pytest.mark.parametrize("document", DOCUMENTS, ids=lambda p: p.name)
def test_every_route_shown_is_served(document):
    missing = _shown_routes(_text(document)) - _served_routes()
    assert not missing, f"{document.name} shows routes the app does not serve: {sorted(missing)}"


def test_every_flag_in_the_settings_table_is_a_serve_flag():
    serve = build_parser()._subparsers._group_actions[0].choices["serve"]
    flags = {option for action in serve._actions for option in action.option_strings}
    rows = [line for document in DOCUMENTS for line in _text(document).splitlines() if line.startswith("| `--")]
    shown = {flag for row in rows for flag in re.findall(r"`(--[a-z0-9-]+)`", row.split("|")[1])}
    assert shown, "the documents have a settings table of serve's flags (docs/operating.md)"
    assert shown <= flags, f"flags in the settings table that serve does not take: {sorted(shown - flags)}"
