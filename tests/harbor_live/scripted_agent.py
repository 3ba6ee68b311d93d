"""A Harbor agent made for the tests: it follows a script instead of asking a model. Per task (its
instruction names the step): it writes the answer the verifier grades, records an ATIF trajectory
of one model call and one tool call (what a real agent's trajectory holds, written with Harbor's
own models), and reports its tokens and cost in Harbor's AgentContext; a task whose instruction
says `fail` raises, as an agent that crashes does, and one that says `fail once at PATH` raises on
its first run only (PATH remembers it), as a flaky agent that Harbor retries does; one that says
`broken trajectory` solves it but leaves an agent/trajectory.json that is no ATIF trajectory
(`steps` not a list), as a buggy agent may."""

from datetime import UTC, datetime
from pathlib import Path

from harbor.agents.base import BaseAgent
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

MODEL = "scripted-model-1"
PROMPT_TOKENS, COMPLETION_TOKENS, COST = 1200, 80, 0.0123
BROKEN_TRAJECTORY = '{"schema_version": "ATIF-v1.6", "steps": "not a list"}\n'


def _now() -> str:
    return datetime.now(UTC).isoformat().replace("+00:00", "Z")


class ScriptedAgent(BaseAgent):
    @staticmethod
    def name() -> str:
        return "scripted-agent"

    def version(self) -> str:
        return "1.0.0"

    async def setup(self, environment) -> None:
        pass

    async def run(self, instruction: str, environment, context: AgentContext) -> None:
        if "fail once at " in instruction:
            marker = Path(instruction.split("fail once at ", 1)[1].strip())
            if not marker.exists():
                marker.write_text("failed once\n")
                raise RuntimeError("the scripted agent was told to fail once")
        elif "fail" in instruction:
            raise RuntimeError("the scripted agent was told to fail")
        asked = _now()
        done = await environment.exec("echo solved > /app/answer.txt && cat /app/answer.txt")
        trajectory = Trajectory(
            schema_version="ATIF-v1.6",
            session_id=f"scripted-{self.session_id}",
            agent=Agent(name=self.name(), version=self.version(), model_name=MODEL),
            steps=[
                Step(step_id=1, timestamp=asked, source="user", message=instruction),
                Step(
                    step_id=2,
                    timestamp=_now(),
                    source="agent",
                    model_name=MODEL,
                    message="Writing the answer.",
                    tool_calls=[
                        ToolCall(
                            tool_call_id="call_1",
                            function_name="Bash",
                            arguments={"command": "echo solved > /app/answer.txt"},
                        )
                    ],
                    observation=Observation(results=[ObservationResult(source_call_id="call_1", content=done.stdout)]),
                    metrics=Metrics(prompt_tokens=PROMPT_TOKENS, completion_tokens=COMPLETION_TOKENS, cost_usd=COST),
                ),
            ],
            final_metrics=FinalMetrics(
                total_prompt_tokens=PROMPT_TOKENS,
                total_completion_tokens=COMPLETION_TOKENS,
                total_cost_usd=COST,
                total_steps=2,
            ),
        )
        (self.logs_dir / "trajectory.json").write_text(
            BROKEN_TRAJECTORY
            if "broken trajectory" in instruction
            else trajectory.model_dump_json(indent=2, exclude_none=True)
        )
        context.n_input_tokens, context.n_output_tokens, context.cost_usd = PROMPT_TOKENS, COMPLETION_TOKENS, COST
