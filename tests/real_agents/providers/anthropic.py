"""A fake Anthropic Messages API (POST /v1/messages, streamed as server-sent events or not), playing a Script.

The stream is the published one: message_start (usage with input and cache tokens), per block
content_block_start / content_block_delta (thinking_delta + signature_delta, text_delta, or a tool_use
block's input as input_json_delta) / content_block_stop, message_delta (stop_reason, final usage),
message_stop. Requests for another model than the main one (Claude Code's session title, its
classifiers) are side calls.
"""

import json

from tests.real_agents.providers.http_fake import FakeProvider, Reply, Request
from tests.real_agents.providers.script import Script, Served, Turn, Usage


def _usage(usage: Usage) -> dict:
    return {
        "input_tokens": usage.input,
        "cache_creation_input_tokens": usage.cache_write,
        "cache_read_input_tokens": usage.cached,
        "output_tokens": usage.output,
    }


def _blocks(turn: Turn) -> list[dict]:
    blocks = []
    if turn.reasoning:
        blocks.append({"type": "thinking", "thinking": turn.reasoning, "signature": "c2lnbmF0dXJl"})
    if turn.text:
        blocks.append({"type": "text", "text": turn.text})
    blocks += [{"type": "tool_use", "id": c.id, "name": c.name, "input": c.arguments} for c in turn.calls]
    return blocks


def _stop_reason(turn: Turn) -> str:
    return "tool_use" if turn.calls else "end_turn"


def _message(served: Served) -> dict:
    return {
        "id": served.response_id,
        "type": "message",
        "role": "assistant",
        "model": served.model,
        "content": _blocks(served.turn),
        "stop_reason": _stop_reason(served.turn),
        "stop_sequence": None,
        "usage": _usage(served.turn.usage),
    }


def _block_events(index: int, block: dict) -> list[tuple[str, dict]]:
    kind = block["type"]
    if kind == "thinking":
        start = {"type": "thinking", "thinking": "", "signature": ""}
        deltas = [
            {"type": "thinking_delta", "thinking": block["thinking"]},
            {"type": "signature_delta", "signature": block["signature"]},
        ]
    elif kind == "text":
        start, deltas = {"type": "text", "text": ""}, [{"type": "text_delta", "text": block["text"]}]
    else:
        start = {"type": "tool_use", "id": block["id"], "name": block["name"], "input": {}}
        arguments = json.dumps(block["input"])
        middle = len(arguments) // 2  # two pieces, as the API streams them
        deltas = [
            {"type": "input_json_delta", "partial_json": part} for part in (arguments[:middle], arguments[middle:])
        ]
    return (
        [("content_block_start", {"type": "content_block_start", "index": index, "content_block": start})]
        + [("content_block_delta", {"type": "content_block_delta", "index": index, "delta": d}) for d in deltas]
        + [("content_block_stop", {"type": "content_block_stop", "index": index})]
    )


def _stream(served: Served) -> list[tuple[str, dict]]:
    message = _message(served)
    start = {**message, "content": [], "stop_reason": None, "usage": {**message["usage"], "output_tokens": 1}}
    events = [("message_start", {"type": "message_start", "message": start})]
    for index, block in enumerate(message["content"]):
        events += _block_events(index, block)
    events += [
        (
            "message_delta",
            {
                "type": "message_delta",
                "delta": {"stop_reason": message["stop_reason"], "stop_sequence": None},
                "usage": message["usage"],
            },
        ),
        ("message_stop", {"type": "message_stop"}),
    ]
    return events


RATE_LIMITED = Reply(
    429,
    {
        "type": "error",
        "error": {"type": "rate_limit_error", "message": "Number of requests has exceeded your rate limit"},
    },
    headers={"retry-after": "1", "request-id": "req_rate_limited"},
)


class AnthropicFake(FakeProvider):
    def __init__(self, script: Script, model: str) -> None:
        super().__init__()
        self.script, self.model = script, model

    def answer(self, request: Request) -> Reply:
        if request.method == "POST" and request.path == "/v1/messages/count_tokens":
            return Reply(body={"input_tokens": 1000})
        if request.method != "POST" or request.path != "/v1/messages":
            return Reply(404, {"type": "error", "error": {"type": "not_found_error", "message": request.path}})
        body = request.json()
        model = body.get("model", "")
        served = self.script.next_turn(model, body) if model == self.model else self.script.side_call(model, body)
        if served is None:
            return Reply(
                400,
                {
                    "type": "error",
                    "error": {
                        "type": "invalid_request_error",
                        "message": "the fake provider's script has no more turns",
                    },
                },
            )
        if served.turn.status == 429:
            return RATE_LIMITED
        headers = {"request-id": f"req_{served.response_id}"}
        if body.get("stream"):
            return Reply(events=_stream(served), headers=headers)
        return Reply(body=_message(served), headers=headers)
