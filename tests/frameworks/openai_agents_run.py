"""openai-agents (its Responses API model) traced by openinference-instrumentation-openai-agents, over the
fake provider's `/v1/responses`; with WITH_OPENAI_CLIENT_INSTRUMENTATION=1 the OpenAI client is instrumented
too (openinference-instrumentation-openai), so each model call is told at two levels.

    python -m tests.frameworks.openai_agents_run <provider url> <OTLP/HTTP endpoint> <service name>
"""

import os
import sys

from agents import Agent, Runner, function_tool, set_default_openai_client
from openai import AsyncOpenAI
from openinference.instrumentation.openai_agents import OpenAIAgentsInstrumentor

from tests.frameworks.chat_provider import ANSWER, FILE_PATH, FILE_TEXT, MODEL, PROMPT
from tests.frameworks.otel_export import Telemetry


@function_tool
def read_file(path: str) -> str:
    """Reads a file."""
    assert path == FILE_PATH, path
    return FILE_TEXT


def main(provider_url: str, otlp_endpoint: str, service: str) -> None:
    telemetry = Telemetry(otlp_endpoint, service)
    # exclusive: replaces the SDK's own exporter to OpenAI's trace backend
    OpenAIAgentsInstrumentor().instrument(tracer_provider=telemetry.traces)
    if os.environ.get("WITH_OPENAI_CLIENT_INSTRUMENTATION"):
        from openinference.instrumentation.openai import OpenAIInstrumentor

        OpenAIInstrumentor().instrument(tracer_provider=telemetry.traces)
    set_default_openai_client(AsyncOpenAI(base_url=f"{provider_url}/v1", api_key="fake"), use_for_tracing=False)
    agent = Agent(name="reader", instructions="You read files.", model=MODEL, tools=[read_file])
    result = Runner.run_sync(agent, PROMPT)
    assert result.final_output == ANSWER, result.final_output
    telemetry.shutdown()


if __name__ == "__main__":
    main(*sys.argv[1:4])
