"""A Google ADK LlmAgent whose Gemini model speaks to the fake provider's Gemini API (`base_url`), with
ADK's built-in OpenTelemetry spans (the global tracer and logger providers) and its defaults for content.

    python -m tests.frameworks.google_adk_run <provider url> <OTLP/HTTP endpoint> <service name>
"""

import asyncio
import sys

from google.adk.agents import LlmAgent
from google.adk.models import Gemini
from google.adk.runners import InMemoryRunner
from google.genai import types

from tests.frameworks.chat_provider import ANSWER, FILE_PATH, FILE_TEXT, MODEL, PROMPT
from tests.frameworks.otel_export import Telemetry


def read_file(path: str) -> str:
    """Reads a file."""
    assert path == FILE_PATH, path
    return FILE_TEXT


async def run() -> str:
    runner = InMemoryRunner(agent=AGENT, app_name="reader-app")
    session = await runner.session_service.create_session(app_name="reader-app", user_id="user")
    final = ""
    async for event in runner.run_async(
        user_id="user", session_id=session.id, new_message=types.Content(role="user", parts=[types.Part(text=PROMPT)])
    ):
        if event.is_final_response() and event.content and event.content.parts:
            final = "".join(p.text or "" for p in event.content.parts)
    await runner.close()
    return final


def main(provider_url: str, otlp_endpoint: str, service: str) -> None:
    global AGENT
    telemetry = Telemetry(otlp_endpoint, service)
    AGENT = LlmAgent(
        name="reader",
        model=Gemini(model=MODEL, base_url=provider_url),
        instruction="You read files.",
        tools=[read_file],
    )
    final = asyncio.run(run())
    assert final == ANSWER, final
    telemetry.shutdown()


if __name__ == "__main__":
    main(*sys.argv[1:4])
