"""The agent of the tour's Harbor jobs: it follows a script instead of asking a model, so the jobs
can be made again on any machine. Its model name picks the script (`scripted/hasty-1` or
`scripted/careful-1`); the script says, per task, what each run does, in the order the runs come:

- `solve`: writes the answer the verifier grades 1, after one model call and one tool call;
- `wrong`: writes an answer the verifier grades 0;
- `crash`: raises, as an agent that crashes does (Harbor retries it);
- `rate-limit`: raises Harbor's ApiRateLimitError, the provider's 429 (an infrastructure error).

Runs are counted per job and task in a state directory beside the jobs (`.tour-state/`)."""

from datetime import UTC, datetime

from harbor.agents.base import BaseAgent
from harbor.agents.installed.base import ApiRateLimitError
from harbor.models.agent.context import AgentContext
from harbor.models.trajectories import (
    Agent,
    FinalMetrics,
    Metrics,
    Observation,
    ObservationResult,
    Step,
    ToolCall,
    Trajectory,
)

SCRIPTS: dict[str, dict[str, tuple[str, ...]]] = {
    "hasty-1": {
        "write-file": ("solve", "solve"),
        "fix-typo": ("crash", "solve", "solve"),
        "count-lines": ("wrong", "solve"),
        "fetch-docs": ("rate-limit", "rate-limit", "solve"),
        "sort-names": ("wrong", "wrong"),
        "rename-var": ("solve", "wrong"),
        "parse-date": ("solve", "solve"),
        "add-test": ("wrong", "wrong"),
        "merge-config": ("solve", "solve"),
        "trim-log": ("wrong", "solve"),
    },
    "careful-1": {
        "write-file": ("solve", "solve"),
        "fix-typo": ("solve", "solve"),
        "count-lines": ("solve", "solve"),
        "fetch-docs": ("wrong", "solve"),
        "sort-names": ("solve", "solve"),
        "rename-var": ("solve", "solve"),
        "parse-date": ("solve", "solve"),
        "add-test": ("wrong", "solve"),
        "merge-config": ("solve", "solve"),
        "trim-log": ("solve", "solve"),
    },
}
TOKENS = {"hasty-1": (900, 60, 0.0041), "careful-1": (2400, 210, 0.0187)}  # input, output, cost (USD)


def _now() -> str:
    return datetime.now(UTC).isoformat().replace("+00:00", "Z")


class TourAgent(BaseAgent):
    @staticmethod
    def name() -> str:
        return "tour-agent"

    def version(self) -> str:
        return "1.0.0"

    async def setup(self, environment) -> None:
        pass

    def _next_action(self, task: str) -> str:
        """This run's step of the script (the last step repeats)."""
        job_dir = self.logs_dir.parents[1]
        counter = job_dir.parent / ".tour-state" / job_dir.name / task
        counter.parent.mkdir(parents=True, exist_ok=True)
        runs = int(counter.read_text()) if counter.exists() else 0
        counter.write_text(str(runs + 1))
        script = SCRIPTS[self.model_name.split("/")[-1]][task]
        return script[min(runs, len(script) - 1)]

    async def run(self, instruction: str, environment, context: AgentContext) -> None:
        model = self.model_name.split("/")[-1]
        task = self.logs_dir.parent.name.split("__")[0]
        action = self._next_action(task)
        if action == "crash":
            raise RuntimeError("the tour agent lost its working directory")
        if action == "rate-limit":
            raise ApiRateLimitError("429 Too Many Requests: rate limit reached for scripted models")
        answer = "solved" if action == "solve" else "not sure"
        asked = _now()
        done = await environment.exec(f"echo {answer!r} > /app/answer.txt && wc -c /app/answer.txt")
        n_in, n_out, cost = TOKENS[model]
        trajectory = Trajectory(
            schema_version="ATIF-v1.6",
            session_id=f"tour-{self.session_id}",
            agent=Agent(name=self.name(), version=self.version(), model_name=model),
            steps=[
                Step(step_id=1, timestamp=asked, source="user", message=instruction),
                Step(
                    step_id=2,
                    timestamp=_now(),
                    source="agent",
                    model_name=model,
                    message="Writing the answer.",
                    tool_calls=[
                        ToolCall(
                            tool_call_id="call_1",
                            function_name="Bash",
                            arguments={"command": f"echo {answer!r} > /app/answer.txt"},
                        )
                    ],
                    observation=Observation(results=[ObservationResult(source_call_id="call_1", content=done.stdout)]),
                    metrics=Metrics(prompt_tokens=n_in, completion_tokens=n_out, cost_usd=cost),
                ),
                Step(
                    step_id=3,
                    timestamp=_now(),
                    source="agent",
                    model_name=model,
                    message=f"I wrote '{answer}' to /app/answer.txt.",
                ),
            ],
            final_metrics=FinalMetrics(
                total_prompt_tokens=n_in, total_completion_tokens=n_out, total_cost_usd=cost, total_steps=3
            ),
        )
        (self.logs_dir / "trajectory.json").write_text(trajectory.model_dump_json(indent=2, exclude_none=True))
        context.n_input_tokens, context.n_output_tokens, context.cost_usd = n_in, n_out, cost
