"""A fake OpenAI Chat Completions API (POST /v1/chat/completions, streamed or not) for the agents that speak
it to an OpenAI-compatible provider: Qwen Code (OPENAI_BASE_URL) and opencode (a custom provider's baseURL).

The stream is the published one: `chat.completion.chunk` objects as `data:` lines — the role, then
`reasoning_content` (the field DeepSeek's and Qwen's APIs stream thinking in), text content, each tool call
(index, id, function name, then its JSON arguments in two pieces), a chunk with finish_reason, and with
`stream_options.include_usage` a last chunk with empty choices and usage: prompt_tokens (cached ones
included) with prompt_tokens_details.cached_tokens, completion_tokens (reasoning included) with
completion_tokens_details.reasoning_tokens. The stream ends when the answer does (no `data: [DONE]`: the shared
server writes JSON events only, and both clients end on the stream's end). A request without tools is a side call (a
session title, a next-speaker check), answered with JSON when it asks for JSON.
"""

import json

from tests.real_agents.providers.http_fake import FakeProvider, Reply, Request
from tests.real_agents.providers.script import Script, Served, Usage


def usage(tokens: Usage) -> dict:
    prompt, completion = tokens.input + tokens.cached, tokens.output + tokens.reasoning
    return {
        "prompt_tokens": prompt,
        "completion_tokens": completion,
        "total_tokens": prompt + completion,
        "prompt_tokens_details": {"cached_tokens": tokens.cached},
        "completion_tokens_details": {"reasoning_tokens": tokens.reasoning},
    }


def _tool_calls(served: Served) -> list[dict]:
    return [
        {"id": c.id, "type": "function", "function": {"name": c.name, "arguments": json.dumps(c.arguments)}}
        for c in served.turn.calls
    ]


def _finish(served: Served) -> str:
    return "tool_calls" if served.turn.calls else "stop"


def _message(served: Served) -> dict:
    turn = served.turn
    message = {"role": "assistant", "content": turn.text or None}
    if turn.reasoning:
        message["reasoning_content"] = turn.reasoning
    if turn.calls:
        message["tool_calls"] = _tool_calls(served)
    return {
        "id": served.response_id,
        "object": "chat.completion",
        "created": 1764806400,
        "model": served.model,
        "choices": [{"index": 0, "message": message, "finish_reason": _finish(served)}],
        "usage": usage(turn.usage),
    }


def _stream(served: Served, include_usage: bool) -> list[tuple[None, dict]]:
    head = {"id": served.response_id, "object": "chat.completion.chunk", "created": 1764806400, "model": served.model}

    def chunk(delta: dict, finish: str | None = None) -> dict:
        return {**head, "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}

    turn = served.turn
    chunks = [chunk({"role": "assistant", "content": ""})]
    if turn.reasoning:
        chunks.append(chunk({"reasoning_content": turn.reasoning}))
    if turn.text:
        chunks.append(chunk({"content": turn.text}))
    for index, call in enumerate(_tool_calls(served)):
        arguments = call["function"]["arguments"]
        middle = len(arguments) // 2
        chunks.append(
            chunk(
                {
                    "tool_calls": [
                        {
                            "index": index,
                            "id": call["id"],
                            "type": "function",
                            "function": {"name": call["function"]["name"], "arguments": ""},
                        }
                    ]
                }
            )
        )
        for part in (arguments[:middle], arguments[middle:]):
            chunks.append(chunk({"tool_calls": [{"index": index, "function": {"arguments": part}}]}))
    chunks.append(chunk({}, _finish(served)))
    if include_usage:
        chunks.append({**head, "choices": [], "usage": usage(turn.usage)})
    return [(None, c) for c in chunks]


def _side_text(request: dict) -> str:
    """A side call asking for JSON (a schema or json mode) gets an object with its required fields filled in;
    anything else (a title) gets the side turn's text."""
    response_format = request.get("response_format") or {}
    schema = (response_format.get("json_schema") or {}).get("schema")
    if schema:
        answers = {"next_speaker": "user", "reasoning": "scripted"}
        return json.dumps({key: answers.get(key, "scripted") for key in schema.get("required", [])})
    if response_format.get("type") == "json_object":
        return json.dumps({"next_speaker": "user", "reasoning": "scripted"})
    return "Hello file"


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


class OpenAIChatFake(FakeProvider):
    def __init__(self, script: Script) -> None:
        super().__init__()
        self.script = script

    def answer(self, request: Request) -> Reply:
        if request.method == "GET" and request.path.endswith("/models"):
            return Reply(body={"object": "list", "data": []})
        if request.method != "POST" or not request.path.endswith("/chat/completions"):
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
        served = (
            self.script.next_turn(model, body)
            if body.get("tools")
            else self.script.side_call(model, body, _side_text(body))
        )
        if served is None:
            return Reply(
                400,
                {"error": {"message": "the fake provider's script has no more turns", "type": "invalid_request_error"}},
            )
        if served.turn.status == 429:
            return RATE_LIMITED
        headers = {"x-request-id": f"req_{served.response_id}"}
        if body.get("stream"):
            include_usage = bool((body.get("stream_options") or {}).get("include_usage"))
            return Reply(events=_stream(served, include_usage), headers=headers)
        return Reply(body=_message(served), headers=headers)
