"""A fake Gemini API (generativelanguage v1beta) for Gemini CLI, reached through GOOGLE_GEMINI_BASE_URL.

`models/{model}:streamGenerateContent?alt=sse` streams GenerateContentResponse chunks as `data:` lines:
thought parts (`thought: true`), text, functionCall parts (name, args, id), then a last chunk with
finishReason and usageMetadata (promptTokenCount including cachedContentTokenCount, candidatesTokenCount,
thoughtsTokenCount). A chat request with tools plays the script; anything else (a next-speaker or routing
check, countTokens) is a side call.
"""

import json

from tests.real_agents.providers.http_fake import FakeProvider, Reply, Request
from tests.real_agents.providers.script import Script, Served, Turn, Usage


def usage_metadata(usage: Usage) -> dict:
    prompt = usage.input + usage.cached
    return {
        "promptTokenCount": prompt,
        "candidatesTokenCount": usage.output,
        "cachedContentTokenCount": usage.cached,
        "thoughtsTokenCount": usage.reasoning,
        "totalTokenCount": prompt + usage.output + usage.reasoning,
    }


def _parts(turn: Turn) -> list[dict]:
    parts = []
    if turn.reasoning:
        parts.append({"text": turn.reasoning, "thought": True})
    if turn.text:
        parts.append({"text": turn.text})
    parts += [{"functionCall": {"id": c.id, "name": c.name, "args": c.arguments}} for c in turn.calls]
    return parts


def _chunks(served: Served) -> list[dict]:
    """One chunk per part, the usage and finish reason on the last, as the API streams them."""
    parts = _parts(served.turn) or [{"text": ""}]
    chunks = [
        {
            "candidates": [{"content": {"role": "model", "parts": [part]}, "index": 0}],
            "modelVersion": served.model,
            "responseId": served.response_id,
        }
        for part in parts
    ]
    chunks[-1]["candidates"][0]["finishReason"] = "STOP"
    chunks[-1]["usageMetadata"] = usage_metadata(served.turn.usage)
    return chunks


def _side_text(request: dict) -> str:
    """A side call asking for JSON gets an object with its schema's required string fields filled in."""
    config = request.get("generationConfig") or {}
    schema = config.get("responseJsonSchema") or config.get("responseSchema")
    if not schema:
        return "ok"
    answers = {"next_speaker": "user", "model_choice": "flash", "reasoning": "scripted"}
    return json.dumps({key: answers.get(key, "scripted") for key in schema.get("required", [])})


RATE_LIMITED = Reply(
    429,
    {
        "error": {
            "code": 429,
            "message": "Resource has been exhausted (e.g. check quota).",
            "status": "RESOURCE_EXHAUSTED",
            "details": [{"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "1s"}],
        }
    },
)


class GeminiFake(FakeProvider):
    def __init__(self, script: Script) -> None:
        super().__init__()
        self.script = script

    def answer(self, request: Request) -> Reply:
        model, _, method = request.path.rpartition("/")[2].partition(":")
        if method == "countTokens":
            return Reply(body={"totalTokens": 1000})
        if method not in ("streamGenerateContent", "generateContent"):
            return Reply(
                404, {"error": {"code": 404, "message": f"no such method: {request.path}", "status": "NOT_FOUND"}}
            )
        body = request.json()
        main = method == "streamGenerateContent" and bool(body.get("tools"))
        served = self.script.next_turn(model, body) if main else self.script.side_call(model, body, _side_text(body))
        if served is None:
            return Reply(
                400,
                {
                    "error": {
                        "code": 400,
                        "message": "the fake provider's script has no more turns",
                        "status": "INVALID_ARGUMENT",
                    }
                },
            )
        if served.turn.status == 429:
            return RATE_LIMITED
        chunks = _chunks(served)
        if method == "generateContent":
            merged = {
                **chunks[-1],
                "candidates": [
                    {**chunks[-1]["candidates"][0], "content": {"role": "model", "parts": _parts(served.turn)}}
                ],
            }
            return Reply(body=merged)
        return Reply(events=[(None, chunk) for chunk in chunks])
