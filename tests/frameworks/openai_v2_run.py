"""Runs the official OpenAI instrumentation (opentelemetry-instrumentation-openai-v2) over a two-call tool
loop against a fake provider, exporting OTLP/HTTP. Run as a process of its own: the instrumentation reads
its mode (OTEL_SEMCONV_STABILITY_OPT_IN) and content capture from the environment when it starts.

    python -m tests.frameworks.openai_v2_run <provider url> <OTLP/HTTP endpoint> <service name>
"""

import json
import sys

import openai
from opentelemetry import trace
from opentelemetry._logs import set_logger_provider
from opentelemetry.exporter.otlp.proto.http._log_exporter import OTLPLogExporter
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.instrumentation.openai_v2 import OpenAIInstrumentor
from opentelemetry.sdk._logs import LoggerProvider
from opentelemetry.sdk._logs.export import BatchLogRecordProcessor
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor

from tests.frameworks.chat_provider import FILE_PATH, PROMPT

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


def main(provider_url: str, otlp_endpoint: str, service: str) -> None:
    resource = Resource.create({"service.name": service})
    traces = TracerProvider(resource=resource)
    traces.add_span_processor(BatchSpanProcessor(OTLPSpanExporter(endpoint=f"{otlp_endpoint}/v1/traces")))
    trace.set_tracer_provider(traces)
    logs = LoggerProvider(resource=resource)
    logs.add_log_record_processor(BatchLogRecordProcessor(OTLPLogExporter(endpoint=f"{otlp_endpoint}/v1/logs")))
    set_logger_provider(logs)
    OpenAIInstrumentor().instrument(tracer_provider=traces, logger_provider=logs)

    client = openai.OpenAI(base_url=f"{provider_url}/v1", api_key="fake")
    messages: list[dict] = [{"role": "system", "content": "You read files."}, {"role": "user", "content": PROMPT}]
    first = client.chat.completions.create(model="gpt-fake-1", messages=messages, tools=TOOLS)
    call = first.choices[0].message.tool_calls[0]
    messages.append(first.choices[0].message.model_dump(exclude_none=True))
    messages.append(
        {"role": "tool", "tool_call_id": call.id, "content": json.dumps({"path": FILE_PATH, "text": "ship it"})}
    )
    client.chat.completions.create(model="gpt-fake-1", messages=messages, tools=TOOLS)
    traces.shutdown()
    logs.shutdown()


if __name__ == "__main__":
    main(*sys.argv[1:4])
