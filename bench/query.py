"""Query latency on generated stores of two sizes (250 and 2,000 trials, ~0.25M and ~2M agent events),
measured in one run, and how each read grows with the store.

1. Generates, per size, a job of TRIALS trials (200 tasks x 5 attempts by default) as OTLP export requests:
   per trial the harness lifecycle (`harbor.trial` + four phases, rewards on the verifier, exception
   events for infra and agent errors; 5% still running, their root span absent), ~900 agent spans
   (model calls with tokens, cost and some 429s; tool calls with arguments and file paths) and ~100
   Claude Code log events. They are written through `harborlight.commit.otlp_insert.insert_requests` (the receiver's own
   write path: engine-side decoding and the agent_events views), 20 requests per INSERT, in a child
   process that owns the data directory.
2. Starts `harborlight serve` on every store at once and times, over HTTP, the job report
   (metrics.json, and its series' intervals), the job row, the job's time split, the full trial list
   and one trial's row, behaviour, trace and time split: the first (cold) call, then the median of
   RUNS calls, the stores taking turns call by call so the machine's load falls on each alike.
3. Then, the same way, every panel of deploy/grafana/dashboards/*.json through the server's SQL port (the
   ClickHouse HTTP interface Grafana's data source speaks, through tests/support/clickhouse_go.py), its
   variables set to the job and the trial above and Grafana's macros expanded as tests/grafana/macros.py does,
   for a time range covering the generated data (its end a second later on each call, as a relative range
   moves): a panel is what a user waits for on a dashboard. Each call is timed until its answer has arrived.

With --twins, the job is instead TRIALS Claude Code trials that stream both signals, a span and a log
event per call (`--calls` calls per trial, 4 in 9 model calls; 1,000 x 500 = 1,003,000 agent events),
so every call is told twice (harborlight/agent/twins.py). Then, on that store:
1. in one process without a server: every trial resolved and derived (the keeper's work on a server's start,
   timed), then, alternating, RUNS times: the live feed's history read as one statement over the job's resolved
   events and a batch of trials at a time (harborlight/api/live/history.py: when its first rows are ready, when
   all are; the rows must be the same) and the Harbor export's read (harborlight/transfer/store_read.py);
2. over HTTP: `/api/live?history=true` from the request to its first and to its last event.
Medians, and the ratios of those measured in the same run.

Usage: python bench/query.py [--trials 250 2000] [--events 1040] [--runs 7] [--data-dir DIR]
       python bench/query.py --twins [--trials 1000] [--calls 500] [--runs 7] [--data-dir DIR]
"""

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path

import httpx
from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import ExportLogsServiceRequest
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.proto.common.v1.common_pb2 import AnyValue, KeyValue

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from harborlight.api.live.events import COLUMNS, LiveRow, to_events  # noqa: E402
from harborlight.api.live.history import read_history  # noqa: E402
from harborlight.commit.otlp_insert import insert_requests  # noqa: E402
from harborlight.store import Signal, ensure_schema, open_client  # noqa: E402
from harborlight.summaries.refresh import refresh  # noqa: E402
from harborlight.transfer import store_read  # noqa: E402
from tests.grafana.macros import TimeRange, expand  # noqa: E402
from tests.support.clickhouse_go import ClickHouseGo, open_grafana_connection  # noqa: E402
from tests.support.servers import SubprocessServer, free_port  # noqa: E402

JOB = "bench-query-job"
T0 = 1_764_547_200_000_000_000
S = 1_000_000_000
MS = 1_000_000
ATTEMPTS = 5
TRIAL_SECONDS = 600  # between two trials' starts
LOGS_SHARE = 0.1  # of a trial's agent events, as Claude Code log events
REQUESTS_PER_INSERT = 20
TOOLS = (("Read", "read"), ("Grep", "search"), ("Edit", "edit"), ("Bash", "execute"), ("Glob", "search"))


def _kv(values: dict) -> list[KeyValue]:
    out = []
    for k, v in values.items():
        value = (
            AnyValue(int_value=v)
            if isinstance(v, int)
            else (AnyValue(double_value=v) if isinstance(v, float) else AnyValue(string_value=str(v)))
        )
        out.append(KeyValue(key=k, value=value))
    return out


def _outcome(i: int, rng: random.Random) -> str:
    roll = rng.random()
    for name, upto in (
        ("resolved", 0.5),
        ("failed", 0.8),
        ("agent_timeout", 0.85),
        ("setup", 0.9),
        ("rate_limited", 0.95),
    ):
        if roll < upto:
            return name
    return "running"


def trial_requests(i: int, n_events: int, rng: random.Random) -> tuple[bytes, bytes]:
    """One trial: a trace request (lifecycle + agent spans) and a logs request."""
    task, attempt = f"task-{i // ATTEMPTS:04d}", i % ATTEMPTS + 1
    trial = f"{task}__{attempt}"
    resource = {
        "service.name": "bench-harness",
        "harbor.job.name": JOB,
        "harbor.trial.name": trial,
        "harbor.task.name": task,
        "harbor.task.source": "bench@1",
        "harbor.attempt": attempt,
        "harbor.agent.name": "codex",
        "harbor.agent.version": "0.9",
        "harbor.model.name": "gpt-5",
    }
    outcome = _outcome(i, rng)
    trace_id = rng.randbytes(16)
    start = T0 + i * TRIAL_SECONDS * S
    req = ExportTraceServiceRequest()
    rs = req.resource_spans.add()
    rs.resource.attributes.extend(_kv(resource))
    scope = rs.scope_spans.add()
    scope.scope.name = "harborlight.harness"
    root_id = rng.randbytes(8)

    def span(
        name: str, begin: int, end: int, parent: bytes, attrs: dict | None = None, exception: str | None = None
    ) -> bytes:
        span_id = rng.randbytes(8)
        s = scope.spans.add(
            trace_id=trace_id,
            span_id=span_id,
            parent_span_id=parent,
            name=name,
            kind=1,
            start_time_unix_nano=begin,
            end_time_unix_nano=end,
        )
        if attrs:
            s.attributes.extend(_kv(attrs))
        if exception:
            e = s.events.add(time_unix_nano=end, name="exception")
            e.attributes.extend(_kv({"exception.type": exception, "exception.message": "bench"}))
        return span_id

    env_end = start + 30 * S
    if outcome == "setup":
        span("harbor.environment_setup", start, env_end, root_id, exception="EnvironmentStartTimeoutError")
        finished = env_end
    else:
        span("harbor.environment_setup", start, env_end, root_id)
        span("harbor.agent_setup", env_end, env_end + 10 * S, root_id)
        agent_start, agent_end = env_end + 10 * S, env_end + 400 * S
        error = {"agent_timeout": "AgentTimeoutError", "rate_limited": "ApiRateLimitError"}.get(outcome)
        execution = span("harbor.agent_execution", agent_start, agent_end, root_id, exception=error)
        n_spans = int(n_events * (1 - LOGS_SHARE))
        step = (agent_end - agent_start) // max(n_spans, 1)
        for j in range(n_spans):
            at = agent_start + j * step
            if j % 5 < 2:
                status = 429 if outcome == "rate_limited" and j % 50 == 0 else 200
                span(
                    "chat gpt-5",
                    at,
                    at + step // 2,
                    execution,
                    {
                        "gen_ai.operation.name": "chat",
                        "gen_ai.request.model": "gpt-5",
                        "http.response.status_code": status,
                        "gen_ai.usage.input_tokens": 20_000 + j * 10,
                        "gen_ai.usage.cache_read.input_tokens": 15_000,
                        "gen_ai.usage.output_tokens": 300,
                        "gen_ai.usage.cost": 0.004,
                    },
                )
            else:
                name, _ = TOOLS[rng.randrange(len(TOOLS))]
                path = f"/testbed/src/module_{rng.randrange(40)}.py"
                span(
                    f"execute_tool {name}",
                    at,
                    at + step // 2,
                    execution,
                    {
                        "gen_ai.operation.name": "execute_tool",
                        "gen_ai.tool.name": name,
                        "gen_ai.tool.call.id": f"call_{j}",
                        "file_path": path,
                        "gen_ai.tool.call.arguments": json.dumps({"file_path": path, "n": j % 7}),
                    },
                )
        finished = agent_end
        if outcome in ("resolved", "failed", "agent_timeout"):
            reward = 1.0 if outcome == "resolved" else 0.0
            span("harbor.verifier", agent_end, agent_end + 60 * S, root_id, {"harbor.reward.reward": reward})
            finished = agent_end + 60 * S
    if outcome != "running":
        s = scope.spans.add(
            trace_id=trace_id,
            span_id=root_id,
            name="harbor.trial",
            kind=1,
            start_time_unix_nano=start,
            end_time_unix_nano=finished + 5 * S,
        )
        s.attributes.extend(_kv({"harbor.trial.name": trial, "harbor.job.name": JOB}))

    logs = ExportLogsServiceRequest()
    rl = logs.resource_logs.add()
    rl.resource.attributes.extend(_kv({**resource, "service.name": "claude-code"}))
    ls = rl.scope_logs.add()
    ls.scope.name = "com.anthropic.claude_code.events"
    for j in range(int(n_events * LOGS_SHARE) if outcome != "setup" else 0):
        record = ls.log_records.add(time_unix_nano=start + 60 * S + j * S, severity_number=9)
        record.body.string_value = "claude_code.api_request"
        record.attributes.extend(
            _kv(
                {
                    "event.name": "api_request",
                    "model": "claude-haiku-4-5",
                    "input_tokens": 50,
                    "cache_read_tokens": 900,
                    "output_tokens": 40,
                    "cost_usd": 0.0005,
                    "duration_ms": 700,
                }
            )
        )
    return req.SerializeToString(), logs.SerializeToString()


def _write_trials(data_dir: Path, job: str, n_trials: int, requests_of: Callable[[int], tuple[bytes, bytes]]) -> None:
    """Writes trial i's (traces, logs) export requests for every i, many trials per INSERT."""
    store = open_client(data_dir)
    ensure_schema(store.client)
    began, built, traces, logs = time.perf_counter(), 0.0, [], []
    for i in range(n_trials):
        t = time.perf_counter()
        trace_bytes, log_bytes = requests_of(i)
        built += time.perf_counter() - t
        traces.append(trace_bytes)
        logs.append(log_bytes)
        if len(traces) == REQUESTS_PER_INSERT or i == n_trials - 1:
            insert_requests(store, Signal.traces, traces)
            insert_requests(store, Signal.logs, logs)
            traces, logs = [], []
            print(f"\r  {i + 1}/{n_trials} trials written", end="", flush=True)
    events = store.client.query(
        "SELECT count() FROM agent_events WHERE JobName = {j:String}", parameters={"j": job}
    ).result_rows[0][0]
    print(f"\n  {events:,} agent events in {time.perf_counter() - began:.0f} s (building requests {built:.0f} s of it)")


def generate(data_dir: Path, n_trials: int, n_events: int) -> None:
    rng = random.Random(11)
    _write_trials(data_dir, JOB, n_trials, lambda i: trial_requests(i, n_events, rng))


TWIN_JOB = "bench-twins-job"
TWIN_TOOLS = ("Read", "Edit", "Bash", "Grep")


def twin_trial_requests(i: int, n_calls: int, rng: random.Random) -> tuple[bytes, bytes]:
    """One Claude Code trial that streams both signals: a trace request and a logs request that tell
    the same session (a prompt, then `n_calls` calls: 4 in 9 model calls, the rest tool calls)."""
    trial = f"task-{i // ATTEMPTS:04d}__{i % ATTEMPTS + 1}"
    resource = _kv({"service.name": "claude-code", "harbor.job.name": TWIN_JOB, "harbor.trial.name": trial})
    session = {"session.id": f"session-{i}"}
    traces = ExportTraceServiceRequest()
    rs = traces.resource_spans.add()
    rs.resource.attributes.extend(resource)
    spans = rs.scope_spans.add()
    spans.scope.name = "com.anthropic.claude_code.tracing"
    logs = ExportLogsServiceRequest()
    rl = logs.resource_logs.add()
    rl.resource.attributes.extend(resource)
    events = rl.scope_logs.add()
    events.scope.name = "com.anthropic.claude_code.events"
    trace_id, turn = rng.randbytes(16), rng.randbytes(8)

    def span(name: str, begin: int, end: int, attrs: dict, span_id: bytes | None = None, parent: bytes = turn) -> None:
        s = spans.spans.add(
            trace_id=trace_id,
            span_id=span_id or rng.randbytes(8),
            parent_span_id=parent,
            name=name,
            kind=1,
            start_time_unix_nano=begin,
            end_time_unix_nano=end,
        )
        s.attributes.extend(_kv({**session, **attrs}))

    def event(name: str, at: int, attrs: dict) -> None:
        record = events.log_records.add(time_unix_nano=at, severity_number=9)
        record.body.string_value = f"claude_code.{name}"
        record.attributes.extend(_kv({**session, "event.name": name, **attrs}))

    start = T0 + i * 600 * S
    span("claude_code.interaction", start, start + 500 * S, {"user_prompt": "fix it"}, span_id=turn, parent=b"")
    event("user_prompt", start, {"prompt": "fix it"})
    for j in range(n_calls):
        at = start + (j + 1) * 1000 * MS
        if j % 9 < 4:
            tokens = {"input_tokens": 20, "cache_read_tokens": 9000, "cache_creation_tokens": 100, "output_tokens": 300}
            call = {"model": "claude-sonnet-4-5", "request_id": f"req-{j}"}
            span("claude_code.llm_request", at, at + 400 * MS, {**call, **tokens, "status_code": 200})
            event("api_request", at + 400 * MS, {**call, **tokens, "cost_usd": 0.004, "duration_ms": 400})
        else:
            tool = {"tool_name": rng.choice(TWIN_TOOLS), "tool_use_id": f"toolu_{j}"}
            span("claude_code.tool", at, at + 50 * MS, tool)
            event(
                "tool_result",
                at + 50 * MS,
                {**tool, "success": "true", "duration_ms": "50", "tool_input": json.dumps({"file_path": "/repo/a.py"})},
            )
    return traces.SerializeToString(), logs.SerializeToString()


def generate_twins(data_dir: Path, n_trials: int, n_calls: int) -> None:
    rng = random.Random(3)
    _write_trials(data_dir, TWIN_JOB, n_trials, lambda i: twin_trial_requests(i, n_calls, rng))


# the history as one statement over the whole job's resolved events (history.py reads it in batches)
_WHOLE_JOB_HISTORY = f"""SELECT {COLUMNS} FROM resolved_events FINAL
WHERE JobKey = {{job:String}} AND NOT OuterTelling ORDER BY end_ts, EventId"""


def twin_reads(data_dir: Path, runs: int, events_file: Path) -> None:
    """The reads of a whole twin job, in this process (no server holds the store), alternating, `runs`
    times; writes the number of events the live history shows to `events_file`."""
    store = open_client(data_dir)
    client, params = store.client, {"job": TWIN_JOB, "tenant": ""}
    began = time.perf_counter()
    refresh(client)  # the keeper's work a server does on start: every trial resolved and derived
    print(f"resolving and deriving every trial: {time.perf_counter() - began:.1f} s")
    # the raw spans' read is bounded by its events' traces (store_read binds them from the events it read)
    params["span_traces"] = [
        t
        for (t,) in client.query(
            "SELECT DISTINCT TraceId FROM agent_events WHERE JobName = {job:String} AND SourceTable = 'otel_traces'",
            parameters=params,
        ).result_rows
    ]
    seconds: dict[str, list[float]] = defaultdict(list)

    def timed_call(label: str, read):
        began = time.perf_counter()
        result = read()
        seconds[label].append(time.perf_counter() - began)
        return result

    for run in range(runs):
        whole = timed_call(
            "history, one statement",
            lambda: list(map(LiveRow._make, client.query(_WHOLE_JOB_HISTORY, parameters=params).result_rows)),
        )
        began, batched = time.perf_counter(), []
        for rows in read_history(client, TWIN_JOB, ""):
            if not batched:
                seconds["history in batches: first rows"].append(time.perf_counter() - began)
            batched += rows
        seconds["history in batches: all rows"].append(time.perf_counter() - began)
        assert batched == whole, "the batched history differs from the whole-job statement"
        timed_call("export read (read_job)", lambda: store_read.read_job(store, TWIN_JOB))
        print(f"  run {run + 1}/{runs} done", flush=True)
    medians = {label: statistics.median(values) for label, values in seconds.items()}
    print(f"\n{'read (' + TWIN_JOB + ', in process)':<48} {'median s':>9}   (of {runs}, alternating)")
    for label, median in medians.items():
        print(f"{label:<48} {median:>9.3f}")
    one = medians["history, one statement"]
    print(
        f"history in batches / one statement: first rows {medians['history in batches: first rows'] / one:.2f}, "
        f"all rows {medians['history in batches: all rows'] / one:.2f}"
    )
    started: set[str] = set()
    events_file.write_text(str(sum(len(to_events(row, started)) for row in whole)))


def live_history_over_http(url: str, expected: int) -> tuple[float, float]:
    """Seconds from asking /api/live?history=true to its first event, and to its `expected`-th."""
    began, first, n = time.perf_counter(), None, 0
    with httpx.stream(
        "GET", f"{url}/api/live", params={"job": TWIN_JOB, "history": "true"}, timeout=httpx.Timeout(10, read=120)
    ) as answer:
        for line in answer.iter_lines():
            if line.startswith("data: "):
                n += 1
                first = first or time.perf_counter() - began
                if n == expected:
                    return first, time.perf_counter() - began
    raise AssertionError(f"the history ended after {n} of {expected} events")


def bench_twins(args: argparse.Namespace) -> None:
    data_dir = args.data_dir or Path(tempfile.mkdtemp(prefix="bench-twins-")) / "store"
    if not (data_dir / "metadata").is_dir():
        print(f"generating {args.trials} Claude Code trials x {args.calls} calls told twice into {data_dir}")
        subprocess.run(
            [
                sys.executable,
                __file__,
                "--twins",
                "--generate-only",
                "--data-dir",
                str(data_dir),
                "--trials",
                str(args.trials),
                "--calls",
                str(args.calls),
            ],
            check=True,
        )
    events_file = data_dir.parent / "bench-twins-history-events"
    subprocess.run(
        [
            sys.executable,
            __file__,
            "--twins",
            "--reads-only",
            "--data-dir",
            str(data_dir),
            "--runs",
            str(args.runs),
            "--events-file",
            str(events_file),
        ],
        check=True,
    )
    expected = int(events_file.read_text())
    server = SubprocessServer(data_dir).start()
    try:
        spans = [live_history_over_http(server.http_url, expected) for _ in range(args.runs)]
    finally:
        server.stop()
    print(
        f"\n/api/live?history=true, {expected:,} events: first after {statistics.median(s[0] for s in spans):.2f} s, "
        f"last after {statistics.median(s[1] for s in spans):.2f} s (medians of {args.runs})"
    )


def timed(client: httpx.Client, path: str, **params) -> float:
    """Seconds of one read."""
    t = time.perf_counter()
    reply = client.get(path, params=params)
    elapsed = time.perf_counter() - t
    assert reply.status_code == 200, reply.text[:300]
    return elapsed


def checks(trial: str) -> list[tuple[str, str, dict]]:
    return [
        ("job report (metrics.json)", f"/api/jobs/{JOB}/report", {"format": "json"}),
        ("job report (summary.md)", f"/api/jobs/{JOB}/report", {"format": "md"}),
        ("job row (rates, counts, pass@k)", f"/api/jobs/{JOB}", {}),
        ("job report (series intervals)", f"/api/jobs/{JOB}/report", {"format": "intervals"}),
        ("job time split (summed)", f"/api/jobs/{JOB}/time", {}),
        ("trial list (every trial, one page)", f"/api/jobs/{JOB}/trials", {"limit": 5000}),
        ("one trial's row", f"/api/trials/{trial}", {}),
        ("one trial's behaviour", f"/api/trials/{trial}/behavior", {}),
        ("one trial's trace (tree, tool decisions)", f"/api/trials/{trial}/trace", {}),
        ("one trial's time split, critical path", f"/api/trials/{trial}/time", {}),
        ("one trial's tool calls (/api/spans)", "/api/spans", {"trial": trial, "kind": "tool", "limit": 1000}),
    ]


def serve_store(data_dir: Path, n_trials: int, n_events: int) -> tuple[SubprocessServer, str, int]:
    """Generates the store when absent and serves it, its SQL port on; returns the server, the trial its reads
    ask for and the SQL port."""
    if not (data_dir / "metadata").is_dir():
        print(f"generating {n_trials} trials x ~{n_events} agent events into {data_dir}")
        subprocess.run(
            [
                sys.executable,
                __file__,
                "--generate-only",
                "--data-dir",
                str(data_dir),
                "--trials",
                str(n_trials),
                "--events",
                str(n_events),
            ],
            check=True,
        )
    sql_port = free_port()
    server = SubprocessServer(data_dir, ("--clickhouse-http-port", str(sql_port))).start(timeout=600)
    # The first read after a start derives the rows of trials not derived yet (a store from before trial
    # summaries: all of them); it is timed apart, the reads after it are what a user waits for.
    began = time.perf_counter()
    with httpx.Client(base_url=server.http_url, timeout=600) as client:
        trial = client.get(f"/api/jobs/{JOB}/trials", params={"limit": 1}).json()["items"][0]["trial"]
    print(f"{n_trials} trials: the first read after the start took {time.perf_counter() - began:.1f} s")
    return server, trial, sql_port


def bench_stores(
    served: dict[int, tuple[SubprocessServer, str, int]], runs: int
) -> dict[int, dict[str, tuple[float, float]]]:
    """Times each read on every store, the stores taking turns run by run (so a change in the machine's
    load falls on every size alike): {size: {label: (cold, median)}}."""
    clients = {n: httpx.Client(base_url=server.http_url, timeout=600) for n, (server, _, _) in served.items()}
    measured: dict[int, dict[str, tuple[float, float]]] = {n: {} for n in served}
    try:
        for at, (label, _, _) in enumerate(checks("")):
            reads = {n: checks(trial)[at] for n, (_, trial, _) in served.items()}
            cold = {n: timed(clients[n], path, **params) for n, (_, path, params) in reads.items()}
            warm: dict[int, list[float]] = {n: [] for n in served}
            for _ in range(runs):
                for n, (_, path, params) in reads.items():
                    warm[n].append(timed(clients[n], path, **params))
            for n in served:
                measured[n][label] = (cold[n], statistics.median(warm[n]))
    finally:
        for client in clients.values():
            client.close()
    return measured


DASHBOARDS = Path(__file__).resolve().parents[1] / "deploy" / "grafana" / "dashboards"


def panel_range(n_trials: int) -> TimeRange:
    """From an hour before the first trial to a day after the last one starts; the interval Grafana would pick
    for it at its default 1,000 data points (the interval decides how many rows a time series returns)."""
    start = datetime.fromtimestamp(T0 // S, UTC) - timedelta(hours=1)
    end = datetime.fromtimestamp(T0 // S + n_trials * TRIAL_SECONDS, UTC) + timedelta(days=1)
    return TimeRange(start, end, interval_s=max(1, int((end - start).total_seconds()) // 1000))


def panel_targets() -> list[tuple[str, str]]:
    """(dashboard / panel title, SQL) of every panel target of every dashboard."""
    targets = []
    for path in sorted(DASHBOARDS.glob("*.json")):
        dashboard = json.loads(path.read_text())
        for panel in dashboard["panels"]:
            for target in panel.get("targets", []):
                targets.append((f"{path.stem.removeprefix('harborlight-')} / {panel['title']}", target["rawSql"]))
    return targets


def dashboard_variables(grafana: ClickHouseGo, trial: str, time_range: TimeRange) -> dict[str, str]:
    """The job and the trial the HTTP reads asked for, and the trial's first trace (the trial dashboard's
    `trace` variable, asked as Grafana asks it)."""
    variables = {"job": JOB, "trial": trial}
    trial_dashboard = json.loads((DASHBOARDS / "harborlight-trial.json").read_text())
    query = next(v for v in trial_dashboard["templating"]["list"] if v["name"] == "trace")["query"]
    variables["trace"] = grafana.query(expand(query, variables, time_range)).rows[0][0]
    return variables


def bench_panels(
    served: dict[int, tuple[SubprocessServer, str, int]], runs: int, time_range: TimeRange
) -> dict[int, dict[str, tuple[float, int]]]:
    """Times each panel's SQL on every store through its SQL port, as the HTTP reads are timed (a cold call, then
    `runs` calls, the stores taking turns): {size: {label: (median, SQL bytes)}}."""
    grafana = {
        n: open_grafana_connection(port, username="grafana", http=httpx.Client()) for n, (_, _, port) in served.items()
    }
    variables = {n: dashboard_variables(grafana[n], trial, time_range) for n, (_, trial, _) in served.items()}
    measured: dict[int, dict[str, tuple[float, int]]] = {n: {} for n in served}

    def timed_sql(n: int, sql: str) -> float:
        """Until the whole answer has arrived: decoding it in Python (a trace view's 1,000 spans of attribute
        maps: ~200 ms) is this client's cost, not the port's, nor that of the data source's Go driver."""
        began = time.perf_counter()
        answer, _ = grafana[n].post(sql)
        elapsed = time.perf_counter() - began
        assert answer.status_code == 200, answer.status_code
        return elapsed

    floor = ("SELECT 1 (what any panel costs)", "SELECT 1")  # the port's checks, the request, the answer
    for label, raw in [floor, *panel_targets()]:
        for n in served:
            grafana[n].query(expand(raw, variables[n], time_range))  # cold, and decoded as the data source does
        warm: dict[int, list[float]] = {n: [] for n in served}
        for run in range(1, runs + 1):
            # a dashboard's range is relative (now-7d): each refresh sends other bounds, so the engine's query
            # condition cache, keyed by the filter's constants, does not answer for it; nor does it here
            moved = replace(time_range, end=time_range.end + timedelta(seconds=run))
            for n in served:
                warm[n].append(timed_sql(n, expand(raw, variables[n], moved)))
        for n in served:
            measured[n][label] = (statistics.median(warm[n]), len(raw.encode()))
    for connection in grafana.values():
        connection.http.close()
    return measured


def print_panels(measured: dict[int, dict[str, tuple[float, int]]], sizes: list[int], runs: int) -> None:
    small, large = sizes[0], sizes[-1]
    header = "".join(f" {f'{n:,} ms':>9}" for n in sizes)
    title = f"{'Grafana panel (SQL port)':<58}{header} {f'{large:,}/{small:,}':>11} {'SQL bytes':>10}"
    print(f"\n{title}   (median of {runs})")
    for label in measured[small]:
        cells = "".join(f" {measured[n][label][0] * 1000:>9.0f}" for n in sizes)
        ratio = measured[large][label][0] / measured[small][label][0]
        print(f"{label:<58}{cells} {ratio:>11.2f} {measured[small][label][1]:>10}")
    slowest = max(measured[large], key=lambda label: measured[large][label][0])
    print(f"slowest panel at {large:,} trials: {slowest}, {measured[large][slowest][0] * 1000:.0f} ms")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument(
        "--trials",
        type=int,
        nargs="+",
        default=[250, 2000],
        help="one store per size, each read the same way (default: 250 and 2000)",
    )
    parser.add_argument("--events", type=int, default=1040, help="agent events per trial (~1M per 1,000 trials)")
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument(
        "--data-dir",
        type=Path,
        default=None,
        help="reuse generated stores: DIR/<trials>/store (with --twins or --generate-only: DIR itself)",
    )
    parser.add_argument("--twins", action="store_true", help="a job whose every call is told twice (see above)")
    parser.add_argument("--calls", type=int, default=500, help="with --twins: calls per trial")
    parser.add_argument("--generate-only", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--reads-only", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--events-file", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.twins:
        args.trials = args.trials[0]
        if args.generate_only:
            generate_twins(args.data_dir, args.trials, args.calls)
        elif args.reads_only:
            twin_reads(args.data_dir, args.runs, args.events_file)
        else:
            bench_twins(args)
        return
    if args.generate_only:
        generate(args.data_dir, args.trials[0], args.events)
        return
    root = args.data_dir or Path(tempfile.mkdtemp(prefix="bench-query-"))
    sizes = sorted(args.trials)
    served: dict[int, tuple[SubprocessServer, str, int]] = {}
    try:
        for n in sizes:
            served[n] = serve_store(root / str(n) / "store", n, args.events)
        before = os.getloadavg()[0]
        measured = bench_stores(served, args.runs)
        after = os.getloadavg()[0]
        panels_measured = bench_panels(served, args.runs, panel_range(max(sizes)))
        panels_after = os.getloadavg()[0]
    finally:
        for server, _, _ in served.values():
            server.stop()
    small, large = sizes[0], sizes[-1]
    header = "".join(f" {f'{n:,} cold s':>14} {f'{n:,} median s':>15}" for n in sizes)
    print(f"\n{'query':<42}{header} {f'{large:,}/{small:,}':>11}   (median of {args.runs})")
    for label in measured[small]:
        cells = "".join(f" {measured[n][label][0]:>14.3f} {measured[n][label][1]:>15.3f}" for n in sizes)
        print(f"{label:<42}{cells} {measured[large][label][1] / measured[small][label][1]:>11.2f}")
    # the machine's load while the reads ran (one-minute load average): figures compare within one run
    print(f"load average {before:.1f} before the reads, {after:.1f} after")
    print_panels(panels_measured, sizes, args.runs)
    print(f"load average {after:.1f} before the panels, {panels_after:.1f} after")


if __name__ == "__main__":
    main()
