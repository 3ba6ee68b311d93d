"""A fake OpenAI-compatible provider of chat completions: a tool call, then the final answer.

Each call's usage is distinct, so a test can tell which call a count came from.
"""

from tests.real_agents.providers.http_fake import FakeProvider, Reply

PROMPT = "What does notes.txt say?"
FILE_PATH = "/work/notes.txt"
ANSWER = "The file says: ship <it> & \"celebrate\" \u2028 ✓"
TOOL_CALL_ID = "call_read_1"
USAGES = [{"prompt_tokens": 31, "completion_tokens": 7, "total_tokens": 38},
          {"prompt_tokens": 53, "completion_tokens": 11, "total_tokens": 64}]


class ChatProvider(FakeProvider):
    def answer(self, request) -> Reply:
        if not request.path.endswith("/chat/completions"):
            return Reply(404, {"error": {"message": f"no such endpoint {request.path}"}})
        turn = sum(1 for r in self.requests if r.path.endswith("/chat/completions")) - 1
        if turn == 0:
            message = {"role": "assistant", "content": None, "tool_calls": [{
                "id": TOOL_CALL_ID, "type": "function",
                "function": {"name": "read_file", "arguments": f'{{"path": "{FILE_PATH}"}}'}}]}
            finish = "tool_calls"
        else:
            message, finish = {"role": "assistant", "content": ANSWER}, "stop"
        return Reply(body={
            "id": f"chatcmpl-{turn}", "object": "chat.completion", "created": 1764547200, "model": "gpt-fake-1",
            "choices": [{"index": 0, "message": message, "finish_reason": finish}],
            "usage": USAGES[min(turn, len(USAGES) - 1)],
        })
