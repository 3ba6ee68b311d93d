"""Names are whatever the sender chose: terminal escapes (clear the screen, set the window title, a C1
CSI, a bidirectional override) and rich markup in a job, trial, span, tool or model name reach the
terminal as visible text (`\\x1b[2J`, `[bold]`), never as control characters or styles, in every command
that renders them."""

import re

import pytest

from harborlight.cli.render import printable, printable_json
from tests.agent.otlp_build import Traces
from tests.cli.commands import run

ESCAPES = "\x1b[2J\x1b]0;owned\x07\x9b31m\u202e\r\x08"
MARKUP = "[bold]b[/][link=http://example.com]l[/link]"
HOSTILE = f"{ESCAPES}{MARKUP}"
NAMED = f"{ESCAPES}[bold]b"  # a job or trial name is a URL path segment: no slash
# what a terminal would act on: C0 but newline and tab, DEL, C1, bidirectional controls
CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u200e\u200f\u2028-\u202e\u2066-\u2069]")


def test_printable_escapes_controls_and_keeps_text():
    assert printable(HOSTILE) == "\\x1b[2J\\x1b]0;owned\\x07\\x9b31m\\u202e\\x0d\\x08" + MARKUP
    assert printable("line\nnext\tcolumn é ☕") == "line\nnext\tcolumn é ☕"
    deep: list = []
    for _ in range(5000):
        deep = [{"n\x1b": deep, "s": "\x1b"}]
    shown = printable_json(deep)
    for _ in range(5000):
        assert shown[0]["s"] == "\\x1b"
        shown = shown[0]["n\\x1b"]


@pytest.fixture(scope="module")
def hostile(server):
    """Two jobs and their trials named with escapes and markup, their spans, tools and models too."""
    for job in (f"job{NAMED}", f"other{NAMED}"):
        _send(server, job, f"trial{NAMED}")
    server.caught_up()
    return f"job{NAMED}", f"other{NAMED}", f"trial{NAMED}"


def _send(server, job: str, trial: str) -> None:
    traces = Traces({"service.name": f"agent{HOSTILE}", "harbor.job.name": job, "harbor.trial.name": trial})
    root = traces.span(f"trial{HOSTILE}", {"lmnr.span.type": "EVALUATION"}, dur_ms=1000)
    agent = traces.span(f"agent{HOSTILE}", {"lmnr.span.type": "EXECUTOR"}, parent=root, start_ms=1, dur_ms=900)
    traces.span(
        f"chat{HOSTILE}",
        {
            "gen_ai.operation.name": "chat",
            "gen_ai.request.model": f"model{HOSTILE}",
            "gen_ai.usage.input_tokens": 30,
            "gen_ai.usage.output_tokens": 3,
        },
        parent=agent,
        start_ms=2,
        dur_ms=15,
    )
    traces.span(
        f"execute_tool tool{HOSTILE}",
        {
            "gen_ai.operation.name": "execute_tool",
            "gen_ai.tool.name": f"tool{HOSTILE}",
            "gen_ai.tool.call.id": "c1",
            "gen_ai.tool.call.arguments": '{"command": "ls"}',
        },
        parent=agent,
        start_ms=20,
        dur_ms=5,
        error=f"failed{HOSTILE}",
    )
    traces.send(server)


@pytest.mark.parametrize(
    "argv",
    [
        ("trace", "{trial}", "--job", "{job}"),
        ("spans", "--job", "{job}"),
        ("trial", "{trial}", "--job", "{job}"),
        ("report", "{job}"),
        ("jobs",),
        ("compare", "{job}", "{other}"),
        ("trial", "{trial}", "--job", "{job}", "--json"),
    ],
)
def test_no_name_reaches_the_terminal_as_control_or_markup(server, hostile, capsys, monkeypatch, argv):
    job, other, trial = hostile
    monkeypatch.setenv("COLUMNS", "400")  # no name folded over two lines
    code, out, err = run(
        capsys, *(a.format(job=job, other=other, trial=trial) for a in argv), "--server", server.http_url
    )
    assert code == 0, err
    assert not CONTROL.search(out), repr(CONTROL.search(out).group())
    if argv[0] != "compare":  # compare shows its jobs' tasks; these trials have none
        assert "\\x1b[2J\\x1b]0;owned\\x07\\x9b31m\\u202e" in out or "\\u001b[2J" in out
    if argv[0] in ("trace", "spans"):
        assert "[bold]b[/][link=http://example.com]l[/link]" in out  # markup prints as it is


@pytest.mark.parametrize("fmt", ["md", "json", "html"])
def test_a_report_document_on_a_terminal_is_printable(server, hostile, fmt):
    """summary.md, metrics.json and the page go to a file as the API wrote them, to a terminal escaped."""
    import os
    import pty
    import subprocess
    import sys

    job = hostile[0]
    argv = [sys.executable, "-m", "harborlight.cli.main", "report", job, "--format", fmt, "--server", server.http_url]
    piped = subprocess.run(argv, capture_output=True, timeout=120)
    assert piped.returncode == 0, piped.stderr
    leader, follower = pty.openpty()
    shown = subprocess.Popen(argv, stdout=follower, stderr=subprocess.DEVNULL)
    os.close(follower)
    out = b""
    while True:
        try:
            chunk = os.read(leader, 1 << 16)
        except OSError:  # the terminal's other end closed
            break
        if not chunk:
            break
        out += chunk
    os.close(leader)
    assert shown.wait(timeout=120) == 0
    text = out.decode().replace("\r\n", "\n")
    assert not CONTROL.search(text), repr(CONTROL.search(text).group())
    if fmt == "json":
        import json

        assert json.loads(text) == json.loads(piped.stdout)  # the same JSON
    else:
        assert CONTROL.search(piped.stdout.decode())  # a file gets the document as the API wrote it


def test_watch_renders_a_hostile_trial_as_text():
    """`harborlight watch`'s board, fed the live events as it is (printable_json), drawn by its console."""
    from harborlight.cli.render import console
    from harborlight.cli.watch_command import TrialBoard

    board = TrialBoard(f"job{NAMED}")
    for event in (
        {"type": "trial_started", "trial": f"trial{HOSTILE}", "data": {"task": f"task{HOSTILE}"}},
        {"type": "trial_finished", "trial": f"trial{HOSTILE}", "data": {"outcome": f"o{ESCAPES}"}},
    ):
        board.apply(printable_json(event))
    terminal = console(width=400)
    with terminal.capture() as shown:
        terminal.print(board.table())
    out = shown.get()
    assert not CONTROL.search(out), repr(CONTROL.search(out).group())
    assert "[bold]b[/][link=http://example.com]l[/link]" in out and "trial\\x1b[2J\\x1b]0;owned\\x07" in out
