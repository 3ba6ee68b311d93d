"""A strands-agents Agent with its OpenAI model provider (streamed chat completions from the fake) and its
built-in OpenTelemetry spans (the global tracer provider); OTEL_SEMCONV_STABILITY_OPT_IN=
gen_ai_latest_experimental switches them to the latest GenAI conventions.

    python -m tests.frameworks.strands_run <provider url> <OTLP/HTTP endpoint> <service name>
"""

import sys

from strands import Agent, tool
from strands.models.openai import OpenAIModel

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
    model = OpenAIModel(client_args={"base_url": f"{provider_url}/v1", "api_key": "fake"}, model_id=MODEL)
    agent = Agent(model=model, name="reader", system_prompt="You read files.", tools=[read_file], callback_handler=None)
    result = agent(PROMPT)
    assert str(result).strip() == ANSWER, str(result)
    telemetry.shutdown()


if __name__ == "__main__":
    main(*sys.argv[1:4])
