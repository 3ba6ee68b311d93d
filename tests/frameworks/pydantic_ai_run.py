"""pydantic-ai's agent with its built-in instrumentation (`Agent.instrument_all()`, the default data format)
over the fake chat provider's OpenAI-compatible chat completions, exported with the plain OTel SDK.

    python -m tests.frameworks.pydantic_ai_run <provider url> <OTLP/HTTP endpoint> <service name>
"""

import sys

from pydantic_ai import Agent
from pydantic_ai.models.openai import OpenAIChatModel
from pydantic_ai.providers.openai import OpenAIProvider

from tests.frameworks.chat_provider import ANSWER, FILE_PATH, FILE_TEXT, MODEL, PROMPT
from tests.frameworks.otel_export import Telemetry


def main(provider_url: str, otlp_endpoint: str, service: str) -> None:
    telemetry = Telemetry(otlp_endpoint, service)
    Agent.instrument_all()
    model = OpenAIChatModel(MODEL, provider=OpenAIProvider(base_url=f"{provider_url}/v1", api_key="fake"))
    agent = Agent(model, name="reader", instructions="You read files.")

    @agent.tool_plain
    def read_file(path: str) -> str:
        """Reads a file."""
        assert path == FILE_PATH, path
        return FILE_TEXT

    result = agent.run_sync(PROMPT)
    assert result.output == ANSWER, result.output
    telemetry.shutdown()


if __name__ == "__main__":
    main(*sys.argv[1:4])
