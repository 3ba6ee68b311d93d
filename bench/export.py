"""Export rate of `export-job`: a 1,000-trial job with ~200 agent events per trial, in one run.

1. Builds the job in memory as Harbor records (each trial: 5 lifecycle spans, an invoke_agent span and
   65 agent steps of one model call and two tool calls, i.e. ~200 agent events) and stores it through
   the Harbor importer's spans and the live ingest path (receiver -> writer -> a fresh embedded store).
2. Times the export: reading the job from the store, building every Harbor file, writing DIR/<job>/,
   and prints trials/s (and the import rate for reference).

Usage: python bench/export.py [--trials 1000] [--steps 65]
"""

import argparse
import asyncio
import sys
import tempfile
import time
import uuid
from argparse import Namespace
from datetime import UTC, datetime, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from harborlight.cli.transfer_access import open_local, sink_for  # noqa: E402
from harborlight.store import Signal  # noqa: E402
from harborlight.transfer.atif import Agent, Metrics, Observation, ObservationResult, Step, ToolCall, Trajectory  # noqa: E402
from harborlight.transfer.harbor_files import (  # noqa: E402
    AgentContext,
    AgentInfo,
    ModelInfo,
    TimingInfo,
    TrialResult,
    VerifierResult,
)
from harborlight.transfer.harbor_read import HarborTrial  # noqa: E402
from harborlight.transfer.harbor_spans import JobContext, trial_requests  # noqa: E402
from harborlight.transfer.job_dir_write import write_job_dir  # noqa: E402
from harborlight.transfer.pump import Pump  # noqa: E402
from harborlight.transfer.service import export_files  # noqa: E402

T0 = datetime(2026, 5, 1, 12, 0, tzinfo=UTC)


def trial(index: int, steps: int) -> HarborTrial:
    start = T0 + timedelta(minutes=index)
    at = lambda s: (start + timedelta(seconds=s)).isoformat().replace("+00:00", "Z")  # noqa: E731
    agent_steps = [Step(step_id=1, timestamp=at(20), source="user", message="Fix the failing test.")]
    for k in range(steps):
        calls = [
            ToolCall(tool_call_id=f"c{k}a", function_name="Read", arguments={"file_path": f"/app/f{k}.py"}),
            ToolCall(tool_call_id=f"c{k}b", function_name="Bash", arguments={"command": "pytest -q"}),
        ]
        agent_steps.append(
            Step(
                step_id=k + 2,
                timestamp=at(21 + k),
                source="agent",
                model_name="claude-sonnet-4-5",
                message=f"step {k}",
                tool_calls=calls,
                observation=Observation(
                    results=[ObservationResult(source_call_id=c.tool_call_id, content="ok " * 20) for c in calls]
                ),
                metrics=Metrics(prompt_tokens=1000 + k, completion_tokens=50, cached_tokens=900, cost_usd=0.001),
            )
        )
    name = f"task-{index % 250}__{index}"
    result = TrialResult(
        id=uuid.uuid5(uuid.NAMESPACE_DNS, name),
        task_name=f"task-{index % 250}",
        trial_name=name,
        trial_uri="file:///jobs/x",
        task_id={"path": f"tasks/task-{index % 250}"},
        task_checksum="0" * 64,
        config={"task": {"path": f"tasks/task-{index % 250}"}, "trial_name": name},
        agent_info=AgentInfo(name="claude-code", version="2.1", model_info=ModelInfo(name="claude-sonnet-4-5")),
        agent_result=AgentContext(n_input_tokens=100_000, n_cache_tokens=90_000, n_output_tokens=3_000, cost_usd=0.1),
        verifier_result=VerifierResult(rewards={"reward": float(index % 2)}),
        started_at=start,
        finished_at=start + timedelta(seconds=steps + 60),
        environment_setup=TimingInfo(started_at=start, finished_at=start + timedelta(seconds=10)),
        agent_setup=TimingInfo(started_at=start + timedelta(seconds=10), finished_at=start + timedelta(seconds=19)),
        agent_execution=TimingInfo(
            started_at=start + timedelta(seconds=19), finished_at=start + timedelta(seconds=steps + 30)
        ),
        verifier=TimingInfo(
            started_at=start + timedelta(seconds=steps + 31), finished_at=start + timedelta(seconds=steps + 50)
        ),
    )
    trajectory = Trajectory(agent=Agent(name="claude-code", version="2.1"), steps=agent_steps)
    return HarborTrial(name, {"task": {"path": f"tasks/task-{index % 250}"}}, result, trajectory, ())


async def store_job(args: Namespace, job: str, n: int, steps: int) -> int:
    context = JobContext(job, str(uuid.uuid4()), {"n_attempts": 4}, None, n)
    sent = 0
    async with sink_for(args, "bench") as sink:
        pump = Pump(sink)
        for i in range(n):
            for body in trial_requests(context, trial(i, steps), i // 250 + 1):
                await pump.send(Signal.traces, body)
                sent += 1
        await pump.drain()
    return pump.tally.stored


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--trials", type=int, default=1000)
    parser.add_argument("--steps", type=int, default=65)
    options = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        args = Namespace(data_dir=Path(tmp) / "store", clickhouse_url=None, server=None, token=None)
        started = time.perf_counter()
        spans = asyncio.run(store_job(args, "bench-export", options.trials, options.steps))
        imported = time.perf_counter() - started
        print(
            f"stored {options.trials} trials ({spans:,} spans, {spans / options.trials:.0f} per trial) "
            f"in {imported:.1f} s: {options.trials / imported:.1f} trials/s imported"
        )
        store = open_local(args, "bench")
        events = store.client.query("SELECT count() FROM agent_events WHERE JobName = 'bench-export'").result_rows[0][0]
        started = time.perf_counter()
        files = export_files(store, "bench-export", str(Path(tmp) / "out"))
        built = time.perf_counter()
        write_job_dir(Path(tmp) / "out", "bench-export", files)
        done = time.perf_counter()
        print(
            f"exported {options.trials} trials ({events / options.trials:.0f} agent events per trial, "
            f"{len(files):,} files, {sum(map(len, files.values())) / 1e6:.0f} MB) in {done - started:.1f} s "
            f"(read + build {built - started:.1f} s, write {done - built:.1f} s): "
            f"{options.trials / (done - started):.1f} trials/s"
        )
        store.client.close()


if __name__ == "__main__":
    main()
