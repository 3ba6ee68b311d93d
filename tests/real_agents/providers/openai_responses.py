"""A fake OpenAI Responses API (POST /v1/responses, streamed) for Codex through a `model_providers` entry
with `base_url` and `wire_api = "responses"`.

The stream is the published one: response.created, per output item response.output_item.added and
response.output_item.done (a reasoning item with its summary, an assistant message with its phase,
function_call items with call_id and JSON arguments, custom_tool_call items with a freeform input), text
deltas, then response.completed with usage: input_tokens (cached ones included) with
input_tokens_details.cached_tokens, output_tokens (reasoning included) with
output_tokens_details.reasoning_tokens. A request without tools is a side call.
"""

import json

from tests.real_agents.providers.http_fake import FakeProvider, Reply, Request
from tests.real_agents.providers.script import Script, Served, Usage


def usage(tokens: Usage) -> dict:
    prompt, completion = tokens.input + tokens.cached, tokens.output + tokens.reasoning
    return {
        "input_tokens": prompt,
        "input_tokens_details": {"cached_tokens": tokens.cached},
        "output_tokens": completion,
        "output_tokens_details": {"reasoning_tokens": tokens.reasoning},
        "total_tokens": prompt + completion,
    }


def _items(served: Served) -> list[dict]:
    turn, rid = served.turn, served.response_id
    items = []
    if turn.reasoning:
        items.append(
            {
                "type": "reasoning",
                "id": f"rs_{rid}",
                "encrypted_content": None,
                "summary": [{"type": "summary_text", "text": turn.reasoning}],
            }
        )
    if turn.text:
        # phase: a reply that ends the turn is the final answer, one beside tool calls commentary.
        items.append(
            {
                "type": "message",
                "id": f"msg_{rid}",
                "role": "assistant",
                "status": "completed",
                "phase": "commentary" if turn.calls else "final_answer",
                "content": [{"type": "output_text", "text": turn.text, "annotations": []}],
            }
        )
    for call in turn.calls:
        if isinstance(call.arguments, str):
            items.append(
                {
                    "type": "custom_tool_call",
                    "id": f"ctc_{call.id}",
                    "call_id": call.id,
                    "name": call.name,
                    "input": call.arguments,
                    "status": "completed",
                }
            )
        else:
            items.append(
                {
                    "type": "function_call",
                    "id": f"fc_{call.id}",
                    "call_id": call.id,
                    "name": call.name,
                    "arguments": json.dumps(call.arguments),
                    "status": "completed",
                }
            )
    return items


def _stream(served: Served) -> list[tuple[str, dict]]:
    response = {
        "id": served.response_id,
        "object": "response",
        "model": served.model,
        "status": "in_progress",
        "output": [],
    }
    events = [("response.created", {"type": "response.created", "response": response})]
    items = _items(served)
    for index, item in enumerate(items):
        events.append(
            (
                "response.output_item.added",
                {
                    "type": "response.output_item.added",
                    "output_index": index,
                    "item": {**item, "status": "in_progress"},
                },
            )
        )
        if item["type"] == "message":
            events.append(
                (
                    "response.output_text.delta",
                    {
                        "type": "response.output_text.delta",
                        "output_index": index,
                        "item_id": item["id"],
                        "content_index": 0,
                        "delta": item["content"][0]["text"],
                    },
                )
            )
        events.append(
            ("response.output_item.done", {"type": "response.output_item.done", "output_index": index, "item": item})
        )
    done = {**response, "status": "completed", "output": items, "usage": usage(served.turn.usage)}
    events.append(("response.completed", {"type": "response.completed", "response": done}))
    return events


RATE_LIMITED = Reply(
    429,
    {
        "error": {
            "message": "Rate limit reached for requests",
            "type": "requests",
            "param": None,
            "code": "rate_limit_exceeded",
        }
    },
    headers={"retry-after": "1", "x-request-id": "req_rate_limited"},
)


class OpenAIResponsesFake(FakeProvider):
    def __init__(self, script: Script) -> None:
        super().__init__()
        self.script = script

    def answer(self, request: Request) -> Reply:
        if request.method == "GET" and request.path.endswith("/models"):
            return Reply(body={"object": "list", "data": []})
        if request.method != "POST" or not request.path.endswith("/responses"):
            return Reply(
                404,
                {
                    "error": {
                        "message": f"no such route: {request.method} {request.path}",
                        "type": "invalid_request_error",
                    }
                },
            )
        body = request.json()
        model = body.get("model", "")
        served = self.script.next_turn(model, body) if body.get("tools") else self.script.side_call(model, body)
        if served is None:
            return Reply(
                400,
                {"error": {"message": "the fake provider's script has no more turns", "type": "invalid_request_error"}},
            )
        if served.turn.status == 429:
            return RATE_LIMITED
        return Reply(events=_stream(served), headers={"x-request-id": f"req_{served.response_id}"})
