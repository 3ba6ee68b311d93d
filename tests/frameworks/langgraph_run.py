"""A LangGraph ReAct agent (langgraph.prebuilt.create_react_agent over langchain-openai's ChatOpenAI with
base_url) traced by openinference-instrumentation-langchain, over the fake chat completions.

    python -m tests.frameworks.langgraph_run <provider url> <OTLP/HTTP endpoint> <service name>
"""

import sys
import warnings

from langchain_core.tools import tool
from langchain_openai import ChatOpenAI
from openinference.instrumentation.langchain import LangChainInstrumentor

from tests.frameworks.chat_provider import ANSWER, FILE_PATH, FILE_TEXT, MODEL, PROMPT
from tests.frameworks.otel_export import Telemetry


@tool
def read_file(path: str) -> str:
    """Reads a file."""
    assert path == FILE_PATH, path
    return FILE_TEXT


def main(provider_url: str, otlp_endpoint: str, service: str) -> None:
    telemetry = Telemetry(otlp_endpoint, service)
    LangChainInstrumentor().instrument(tracer_provider=telemetry.traces)
    with warnings.catch_warnings():  # LangGraph 1.x points to langchain.agents.create_agent; this is LangGraph's own
        warnings.simplefilter("ignore")
        from langgraph.prebuilt import create_react_agent
    model = ChatOpenAI(model=MODEL, base_url=f"{provider_url}/v1", api_key="fake")
    agent = create_react_agent(model, [read_file], prompt="You read files.")
    result = agent.invoke({"messages": [{"role": "user", "content": PROMPT}]})
    assert result["messages"][-1].content == ANSWER, result["messages"][-1]
    telemetry.shutdown()


if __name__ == "__main__":
    main(*sys.argv[1:4])
