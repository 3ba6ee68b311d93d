"""OpenLLMetry (traceloop-sdk: its OpenAI instrumentation, and its @agent and @tool decorators around a
hand-written two-call tool loop) over the fake chat completions, exported to OTLP/HTTP by its own
Traceloop.init with the plain OTel exporter (no Traceloop account, its telemetry off).

    python -m tests.frameworks.traceloop_run <provider url> <OTLP/HTTP endpoint> <service name>
"""

import json
import os
import sys

import openai
from opentelemetry import trace
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from traceloop.sdk import Traceloop
from traceloop.sdk.decorators import agent, tool

from tests.frameworks.chat_provider import ANSWER, FILE_PATH, FILE_TEXT, MODEL, PROMPT

TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "read_file",
            "description": "Reads a file.",
            "parameters": {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]},
        },
    }
]


@tool(name="read_file")
def read_file(path: str) -> str:
    assert path == FILE_PATH, path
    return FILE_TEXT


@agent(name="reader")
def reader(client: openai.OpenAI) -> str:
    messages: list[dict] = [{"role": "system", "content": "You read files."}, {"role": "user", "content": PROMPT}]
    while True:
        reply = client.chat.completions.create(model=MODEL, messages=messages, tools=TOOLS).choices[0].message
        if not reply.tool_calls:
            return reply.content
        messages.append(reply.model_dump(exclude_none=True))
        for call in reply.tool_calls:
            text = read_file(**json.loads(call.function.arguments))
            messages.append({"role": "tool", "tool_call_id": call.id, "content": text})


def main(provider_url: str, otlp_endpoint: str, service: str) -> None:
    # Traceloop.init builds its resource from app_name and resource_attributes only: it does not read
    # OTEL_RESOURCE_ATTRIBUTES, so the harness's names are passed on by hand.
    harness = dict(kv.split("=", 1) for kv in os.environ.get("OTEL_RESOURCE_ATTRIBUTES", "").split(",") if "=" in kv)
    Traceloop.init(
        app_name=service,
        exporter=OTLPSpanExporter(endpoint=f"{otlp_endpoint}/v1/traces"),
        resource_attributes=harness,
        telemetry_enabled=False,
    )
    answer = reader(openai.OpenAI(base_url=f"{provider_url}/v1", api_key="fake"))
    assert answer == ANSWER, answer
    trace.get_tracer_provider().shutdown()


if __name__ == "__main__":
    main(*sys.argv[1:4])
