"""A smolagents ToolCallingAgent with its OpenAIServerModel (the fake's chat completions; it answers through
its final_answer tool, which the fake calls on the second turn) traced by
openinference-instrumentation-smolagents.

    python -m tests.frameworks.smolagents_run <provider url> <OTLP/HTTP endpoint> <service name>
"""

import sys

from openinference.instrumentation.smolagents import SmolagentsInstrumentor
from smolagents import OpenAIServerModel, ToolCallingAgent, tool

from tests.frameworks.chat_provider import ANSWER, FILE_PATH, FILE_TEXT, MODEL, PROMPT
from tests.frameworks.otel_export import Telemetry


@tool
def read_file(path: str) -> str:
    """Reads a file.

    Args:
        path: the file's path
    """
    assert path == FILE_PATH, path
    return FILE_TEXT


def main(provider_url: str, otlp_endpoint: str, service: str) -> None:
    telemetry = Telemetry(otlp_endpoint, service)
    SmolagentsInstrumentor().instrument(tracer_provider=telemetry.traces)
    model = OpenAIServerModel(model_id=MODEL, api_base=f"{provider_url}/v1", api_key="fake")
    agent = ToolCallingAgent(tools=[read_file], model=model, name="reader", max_steps=4, verbosity_level=0)
    result = agent.run(PROMPT)
    assert result == ANSWER, result
    telemetry.shutdown()


if __name__ == "__main__":
    main(*sys.argv[1:4])
