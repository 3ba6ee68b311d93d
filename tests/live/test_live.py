"""GET /api/live watched with a real SSE client while a job streams in, one export request per step."""

import json
import os
import threading
import time

import httpx

from tests.agent.otlp_build import Logs, Traces

STEPS = [  # span name, attributes, the live events it should produce, in order
    ("harbor.environment_setup", {}, ["trial_started", "phase"]),
    (
        "chat gpt-5",
        {
            "gen_ai.operation.name": "chat",
            "gen_ai.request.model": "gpt-5",
            "gen_ai.usage.input_tokens": 1200,
            "gen_ai.usage.output_tokens": 80,
        },
        ["model_call"],
    ),
    (
        "execute_tool Bash",
        {
            "gen_ai.operation.name": "execute_tool",
            "gen_ai.tool.name": "Bash",
            "gen_ai.tool.call.id": "call-1",
            "command": "pytest -q",
        },
        ["tool_call"],
    ),
    ("harbor.agent_execution", {}, ["phase"]),
    ("harbor.trial", {}, ["trial_finished"]),
]


class SseClient:
    """Reads /api/live in a thread; keeps (arrival time, event type, data) in order; hangs up after `count`."""

    def __init__(self, url: str, count: int, headers: dict | None = None) -> None:
        self._count = count
        self._headers = headers or {}
        self.events: list[tuple[float, str, dict]] = []
        self.ready = threading.Event()
        self._url = url
        self._stop = False
        self._thread = threading.Thread(target=self._read, daemon=True)
        self._thread.start()
        assert self.ready.wait(10), "the live stream did not open"

    def _read(self) -> None:
        try:
            with httpx.stream("GET", self._url, headers=self._headers, timeout=httpx.Timeout(5, read=None)) as answer:
                assert answer.headers["content-type"].startswith("text/event-stream")
                kind = None
                for line in answer.iter_lines():
                    self.ready.set()
                    if line.startswith("event: "):
                        kind = line[7:]
                    elif line.startswith("data: "):
                        self.events.append((time.monotonic(), kind, json.loads(line[6:])))
                        if len(self.events) >= self._count:
                            return
        except (httpx.HTTPError, RuntimeError):
            if not self._stop:
                raise

    def wait_for(self, count: int, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        while len(self.events) < count and time.monotonic() < deadline:
            time.sleep(0.01)

    def close(self) -> None:
        self._stop = True
        self._thread.join(5)


def test_live_events_arrive_in_order_for_the_watched_job_only(server, unique):
    """How soon they arrive is measured by bench/ingest.py (last acknowledgement -> agent events)."""
    job, other_job = f"job-{unique}", f"other-{unique}"
    watcher = SseClient(f"{server.http_url}/api/live?job={job}", sum(len(events) for _, _, events in STEPS))
    trace_id, root = os.urandom(16), os.urandom(8)
    expected = []
    for i, (name, attrs, events) in enumerate(STEPS):
        for which_job in (other_job, job):  # the other job's twin must not reach this watcher
            resource = {
                "service.name": f"agent-{unique}",
                "harbor.job.name": which_job,
                "harbor.trial.name": f"{which_job}-t1",
                "harbor.task.name": "fix-bug",
            }
            traces = Traces(resource, trace_id=trace_id if which_job == job else os.urandom(16))
            start = 0 if name == "harbor.trial" else 1000 * (i + 1)
            traces.span(
                name,
                attrs,
                parent=b"" if name == "harbor.trial" else root,
                start_ms=start,
                dur_ms=10_000 if name == "harbor.trial" else 500,
                span_id=root if name == "harbor.trial" else None,
            )
            traces.send(server)
        expected.extend(events)
        watcher.wait_for(len(expected), 30)
    watcher.close()
    assert [kind for _, kind, _ in watcher.events] == expected
    assert {data["job"] for _, _, data in watcher.events} == {job}
    model_call = next(data for _, kind, data in watcher.events if kind == "model_call")
    assert model_call["data"]["model"] == "gpt-5" and model_call["data"]["input_tokens"] == 1200
    tool_call = next(data for _, kind, data in watcher.events if kind == "tool_call")
    assert tool_call["data"]["tool"] == "Bash" and tool_call["trial"] == f"{job}-t1"
    assert [d["data"]["phase"] for _, k, d in watcher.events if k == "phase"] == [
        "environment_setup",
        "agent_execution",
    ]
    finished = next(data for _, kind, data in watcher.events if kind == "trial_finished")["data"]
    row = httpx.get(f"{server.http_url}/api/trials/{job}-t1", params={"job": job}, timeout=120).json()
    assert (finished["outcome"], finished["reward"]) == (row["outcome"]["value"], row["reward"]["value"])


def test_history_replays_a_jobs_stored_events_first(server, unique):
    job = f"job-{unique}"
    resource = {"service.name": f"agent-{unique}", "harbor.job.name": job, "harbor.trial.name": f"{job}-t9"}
    traces = Traces(resource)
    root = traces.span("harbor.trial", {}, start_ms=0, dur_ms=5000)
    traces.span("harbor.verifier", {"harbor.reward.reward": 1.0}, parent=root, start_ms=4000, dur_ms=500)
    traces.send(server)
    watcher = SseClient(f"{server.http_url}/api/live?job={job}&history=true", 3)
    watcher.wait_for(3, 30)
    watcher.close()
    assert [kind for _, kind, _ in watcher.events] == ["trial_started", "phase", "trial_finished"]
    finished = watcher.events[-1][2]["data"]
    assert (finished["outcome"], finished["reward"]) == ("resolved", 1.0)  # the trial's stored row, as the API's


def test_watch_builds_a_table_of_trials_from_the_live_stream(server, unique):
    from harborlight.cli.watch_command import TrialBoard, live_events

    job = f"job-{unique}"
    resource = {
        "service.name": f"agent-{unique}",
        "harbor.job.name": job,
        "harbor.trial.name": f"{job}-t1",
        "harbor.task.name": "fix-bug",
    }
    traces = Traces(resource)
    root = traces.span("harbor.trial", {}, start_ms=0, dur_ms=9000)
    traces.span(
        "chat gpt-5",
        {
            "gen_ai.operation.name": "chat",
            "gen_ai.request.model": "gpt-5",
            "gen_ai.usage.input_tokens": 100,
            "gen_ai.usage.output_tokens": 7,
        },
        parent=root,
        start_ms=1000,
        dur_ms=500,
    )
    traces.span("harbor.verifier", {"harbor.reward.reward": 0.0}, parent=root, start_ms=8000, dur_ms=500)
    traces.send(server)
    board = TrialBoard(job)
    for n, event in enumerate(live_events(server.http_url, job, None), 1):
        board.apply(event)
        if n == 4:  # started, model call, verifier phase, finished
            break
    line = board.trials[f"{job}-t1"]
    assert (line.task, line.model_calls, line.input_tokens, line.phase) == ("fix-bug", 1, 100, "finished")
    assert (line.state, line.outcome) == ("finished", "failed_verification")  # its outcome, not only its end
    assert board.table().row_count == 1


def test_watch_says_in_one_line_when_no_server_answers(capsys):
    from harborlight.cli.main import main
    from tests.support.servers import free_port

    assert main(["watch", "some-job", "--server", f"http://127.0.0.1:{free_port()}"]) == 1
    err = capsys.readouterr().err.strip()
    assert err.startswith("harborlight: cannot reach") and "\n" not in err


def test_a_server_stopping_ends_open_live_streams_cleanly(tmp_path):
    """Stopping the server finishes each open stream (the SSE client sees the end of the response),
    instead of holding shutdown until the connection is cut."""
    from tests.support.servers import SubprocessServer

    server = SubprocessServer(tmp_path / "store").start()
    outcome: dict = {}

    def read() -> None:
        try:
            with httpx.stream("GET", f"{server.http_url}/api/live", timeout=httpx.Timeout(5, read=None)) as answer:
                for _ in answer.iter_lines():
                    outcome["opened"] = True
            outcome["ended"] = "cleanly"
        except httpx.HTTPError as exc:
            outcome["ended"] = f"{type(exc).__name__}: {exc}"

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    deadline = time.monotonic() + 10
    while "opened" not in outcome and time.monotonic() < deadline:
        time.sleep(0.01)
    assert outcome.get("opened"), "the live stream did not open"
    assert server.stop() == 0
    reader.join(10)
    assert outcome.get("ended") == "cleanly"


def test_a_call_whose_span_arrives_after_its_event_is_shown_once(server, unique):
    """Claude Code tells a model call as a log event and as a span, each on its own export schedule, both
    with the provider's request id: the event is shown when it lands; its span, landing later, is the same
    call, also when it lands in one commit with the span of the next call."""
    job = f"job-{unique}"
    resource = {"service.name": "claude-code", "harbor.job.name": job, "harbor.trial.name": f"{job}-t1"}
    watcher = SseClient(f"{server.http_url}/api/live?job={job}", 3)
    logs = Logs(resource, scope="com.anthropic.claude_code.events")
    logs.event(
        {
            "event.name": "api_request",
            "model": "claude-sonnet-4-5",
            "input_tokens": "10",
            "request_id": "req_1",
            "cost_usd": "0.01",
            "duration_ms": "500",
        },
        at_ms=1500,
        body="claude_code.api_request",
    )
    logs.send(server)
    watcher.wait_for(2, 30)  # trial_started, model_call
    spans = Traces(resource, scope="com.anthropic.claude_code.tracing")
    spans.span(
        "claude_code.llm_request",
        {"model": "claude-sonnet-4-5", "input_tokens": 10, "request_id": "req_1"},
        start_ms=1000,
        dur_ms=500,
    )
    spans.send(server)
    later = Traces(resource, scope="com.anthropic.claude_code.tracing")  # a new call: it must still show
    later.span(
        "claude_code.llm_request",
        {"model": "claude-sonnet-4-5", "input_tokens": 20, "request_id": "req_2"},
        start_ms=3000,
        dur_ms=500,
    )
    later.send(server)
    watcher.wait_for(3, 30)
    time.sleep(0.5)  # anything more would have come by now
    watcher.close()
    assert [kind for _, kind, _ in watcher.events] == ["trial_started", "model_call", "model_call"]
    assert [d["data"]["input_tokens"] for _, k, d in watcher.events if k == "model_call"] == [10, 20]


def test_watch_without_a_terminal_prints_a_line_per_event(server, unique):
    import subprocess
    import sys

    job = f"job-{unique}"
    traces = Traces({"service.name": f"agent-{unique}", "harbor.job.name": job, "harbor.trial.name": f"{job}-t1"})
    root = traces.span("harbor.trial", {}, start_ms=0, dur_ms=9000)
    traces.span(
        "chat gpt-5",
        {
            "gen_ai.operation.name": "chat",
            "gen_ai.request.model": "gpt-5",
            "gen_ai.usage.input_tokens": 100,
            "gen_ai.usage.output_tokens": 7,
        },
        parent=root,
        start_ms=1000,
        dur_ms=500,
    )
    traces.send(server)
    server.caught_up()
    lines = []
    with subprocess.Popen(  # on leaving the block, its pipes are closed and the process waited for
        [sys.executable, "-m", "harborlight.cli.main", "watch", job, "--server", server.http_url],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    ) as watch:
        try:
            for text in watch.stdout:  # a pipe, not a terminal
                lines.append(text)
                if " trial_finished" in text:
                    break
        finally:
            watch.kill()
    assert [text.split()[2] for text in lines] == ["trial_started", "model_call", "trial_finished"]
    assert f"{job}-t1" in lines[1] and "input_tokens=100" in lines[1] and "model=gpt-5" in lines[1]


def test_watch_of_an_unknown_job_is_one_line_and_exit_1_unless_told_to_wait(server, capsys):
    from harborlight.cli.main import main

    assert main(["watch", "no-such-job", "--server", server.http_url]) == 1
    err = capsys.readouterr().err
    assert (
        err == f"harborlight: no job named no-such-job on {server.http_url} (pass --wait to wait for its first event)\n"
    )


def test_watch_says_why_when_the_server_drops_its_stream(server, capsys, monkeypatch):
    """The server's final `dropped` event (a stream that fell behind) ends watch with its reason."""
    from harborlight.cli import watch_command
    from harborlight.cli.main import main

    dropped = {
        "type": "dropped",
        "job": "j",
        "trial": None,
        "at_unix_nano": 0,
        "data": {"reason": "this stream fell 300,000 bytes behind its reader"},
    }
    monkeypatch.setattr(watch_command, "live_events", lambda *args: iter([dropped]))
    assert main(["watch", "j", "--wait", "--server", server.http_url]) == 1
    assert capsys.readouterr().err == (
        "harborlight: the server ended the stream: this stream fell 300,000 bytes behind its reader\n"
    )
