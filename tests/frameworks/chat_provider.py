"""A fake model provider: a tool call, then the final answer, in whichever API shape the agent speaks.

Call 1 answers with the tool call read_file(path=FILE_PATH), every later call with ANSWER (as a call of the
`final_answer` tool where the request offers one: smolagents' only way to answer); each call's usage
is distinct, so a test can tell which call a count came from. Shapes: OpenAI chat completions
(`/v1/chat/completions`, plain or streamed), the OpenAI Responses API (`/v1/responses`, plain or streamed)
and the Gemini API (`models/{model}:generateContent` / `:streamGenerateContent?alt=sse`). `served` names
the API of each call answered, in order.

Stdlib only: the framework drivers (tests/frameworks/*_run.py) import its constants in venvs of their own.
"""

import json

from tests.real_agents.providers.http_fake import FakeProvider, Reply, Request

PROMPT = "What does notes.txt say?"
FILE_PATH = "/work/notes.txt"
FILE_TEXT = "ship it"
ANSWER = 'The file says: ship <it> & "celebrate" \u2028 ✓'
TOOL_CALL_ID = "call_read_1"
FINAL_CALL_ID = "call_final_1"  # an agent that answers only through a final_answer tool (smolagents) gets it so
MODEL = "gpt-fake-1"
USAGES = [
    {"prompt_tokens": 31, "completion_tokens": 7, "total_tokens": 38},
    {"prompt_tokens": 53, "completion_tokens": 11, "total_tokens": 64},
]
ARGUMENTS = json.dumps({"path": FILE_PATH})


def _api(request: Request) -> str | None:
    if request.method != "POST":
        return None
    if request.path.endswith("/chat/completions"):
        return "chat"
    if request.path.endswith("/responses"):
        return "responses"
    if request.path.endswith((":generateContent", ":streamGenerateContent")):
        return "gemini"
    return None


class ChatProvider(FakeProvider):
    def __init__(self) -> None:
        super().__init__()
        self.served: list[str] = []  # the API of each model call answered

    def answer(self, request: Request) -> Reply:
        if request.method == "GET" and request.path.endswith("/models"):
            return Reply(body={"object": "list", "data": [{"id": MODEL, "object": "model", "owned_by": "fake"}]})
        api = _api(request)
        if api is None:
            return Reply(404, {"error": {"message": f"no such endpoint {request.method} {request.path}"}})
        turn = len(self.served)
        self.served.append(api)
        usage = USAGES[min(turn, len(USAGES) - 1)]
        body = request.json()
        if api == "chat":
            final_tool = any((t.get("function") or {}).get("name") == "final_answer" for t in body.get("tools") or [])
            return _chat(turn, usage, bool(body.get("stream")), final_tool)
        if api == "responses":
            return _responses(turn, usage, bool(body.get("stream")))
        return _gemini(turn, usage, request.path.endswith(":streamGenerateContent"))


def _chat(turn: int, usage: dict, stream: bool, final_tool: bool = False) -> Reply:
    if turn == 0 or final_tool:
        call = {"id": TOOL_CALL_ID, "type": "function", "function": {"name": "read_file", "arguments": ARGUMENTS}}
        if turn:
            call = {
                "id": FINAL_CALL_ID,
                "type": "function",
                "function": {"name": "final_answer", "arguments": json.dumps({"answer": ANSWER})},
            }
        message, finish = {"role": "assistant", "content": None, "tool_calls": [call]}, "tool_calls"
    else:
        message, finish = {"role": "assistant", "content": ANSWER}, "stop"
    head = {"id": f"chatcmpl-{turn}", "created": 1764547200, "model": MODEL}
    if not stream:
        return Reply(
            body={
                **head,
                "object": "chat.completion",
                "choices": [{"index": 0, "message": message, "finish_reason": finish}],
                "usage": usage,
            }
        )
    chunk = {**head, "object": "chat.completion.chunk"}
    if finish == "tool_calls":
        delta = {"role": "assistant", "content": None, "tool_calls": [{"index": 0, **call}]}
    else:
        delta = {"role": "assistant", "content": ANSWER}
    return Reply(
        events=[
            (None, {**chunk, "choices": [{"index": 0, "delta": delta, "finish_reason": None}]}),
            (None, {**chunk, "choices": [{"index": 0, "delta": {}, "finish_reason": finish}]}),
            (None, {**chunk, "choices": [], "usage": usage}),  # the stream ends without [DONE]: the fake writes JSON
        ]
    )


def _responses(turn: int, usage: dict, stream: bool) -> Reply:
    if turn == 0:
        item = {
            "type": "function_call",
            "id": "fc_read_1",
            "call_id": TOOL_CALL_ID,
            "name": "read_file",
            "arguments": ARGUMENTS,
            "status": "completed",
        }
    else:
        item = {
            "type": "message",
            "id": f"msg_{turn}",
            "role": "assistant",
            "status": "completed",
            "content": [{"type": "output_text", "text": ANSWER, "annotations": []}],
        }
    response = {
        "id": f"resp_{turn}",
        "object": "response",
        "created_at": 1764547200,
        "model": MODEL,
        "status": "completed",
        "error": None,
        "incomplete_details": None,
        "instructions": None,
        "metadata": {},
        "parallel_tool_calls": True,
        "temperature": 1.0,
        "tool_choice": "auto",
        "tools": [],
        "top_p": 1.0,
        "output": [item],
        "usage": {
            "input_tokens": usage["prompt_tokens"],
            "input_tokens_details": {"cached_tokens": 0},
            "output_tokens": usage["completion_tokens"],
            "output_tokens_details": {"reasoning_tokens": 0},
            "total_tokens": usage["total_tokens"],
        },
    }
    if not stream:
        return Reply(body=response)
    started = {**response, "status": "in_progress", "output": [], "usage": None}
    events = [
        ("response.created", {"type": "response.created", "sequence_number": 0, "response": started}),
        (
            "response.output_item.added",
            {
                "type": "response.output_item.added",
                "sequence_number": 1,
                "output_index": 0,
                "item": {**item, "status": "in_progress"},
            },
        ),
    ]
    if item["type"] == "message":
        events.append(
            (
                "response.output_text.delta",
                {
                    "type": "response.output_text.delta",
                    "sequence_number": 2,
                    "output_index": 0,
                    "item_id": item["id"],
                    "content_index": 0,
                    "delta": ANSWER,
                    "logprobs": [],
                },
            )
        )
    events += [
        (
            "response.output_item.done",
            {"type": "response.output_item.done", "sequence_number": 3, "output_index": 0, "item": item},
        ),
        ("response.completed", {"type": "response.completed", "sequence_number": 4, "response": response}),
    ]
    return Reply(events=events)


def _gemini(turn: int, usage: dict, stream: bool) -> Reply:
    if turn == 0:
        part = {"functionCall": {"id": TOOL_CALL_ID, "name": "read_file", "args": {"path": FILE_PATH}}}
    else:
        part = {"text": ANSWER}
    body = {
        "candidates": [{"content": {"role": "model", "parts": [part]}, "finishReason": "STOP", "index": 0}],
        "usageMetadata": {
            "promptTokenCount": usage["prompt_tokens"],
            "candidatesTokenCount": usage["completion_tokens"],
            "totalTokenCount": usage["total_tokens"],
        },
        "modelVersion": MODEL,
        "responseId": f"gemini-{turn}",
    }
    return Reply(events=[(None, body)]) if stream else Reply(body=body)
