"""What an agent event says, read from its raw attributes (pure): user text, the model's output
(text, reasoning, tool calls), a tool call's arguments and result. One alias list per piece, first
present wins, covering GenAI semconv (its latest messages attributes and its 1.30 message events, whose
log body is the message: `{"content"}`, `{"content", "tool_calls"}`, gen_ai.choice's
`{"index", "finish_reason", "message": {...}}`), OpenInference, Claude Code, Codex and Gemini CLI."""

import json
import re
from dataclasses import dataclass, field
from typing import Any

from harborlight.agent.rule_types import FlatMessages
from harborlight.agent.rules import (
    AI_SDK_MESSAGES,
    AI_SDK_TOOLS,
    ANSWER_TOOLS,
    ARGUMENT_WRAPPERS,
    FACTS,
    FLAT_INPUT_MESSAGES,
    FLAT_OUTPUT_MESSAGES,
    MESSAGE_EVENTS,
    NEW_TURN_MESSAGES,
    OFFERED_TOOLS,
    TOOL_MESSAGE_EVENT,
)
from harborlight.transfer import atif_attributes as A
from harborlight.transfer.telemetry import Event

USER_TEXT = ("prompt", "user_prompt", "input.value", "body")
OUTPUT_TEXT = ("output.value", "ai.response.text", "response", "response_text", "body")
GEMINI_RESPONSE = "response_text"  # gemini_cli.api_response: its response chunks as JSON, read as output messages
REASONING_TEXT = ("metadata.reasoning_content", "reasoning", "reasoning_content")
# A tool call's arguments: where the agent views read them (the `arguments` fact), first present wins.
ARGUMENTS = tuple(a.key for f in FACTS if f.name == "arguments" for a in f.aliases if not a.key.startswith("@"))
RESULT = (A.TOOL_RESULT, "output.value", "output", "ai.toolCall.result", "tool_result", "traceloop.entity.output")
TOOL_OUTPUT_EVENT = ("tool.output", ("output", "content"))


@dataclass
class ModelOutput:
    text: str | None = None
    reasoning: str | None = None
    tool_calls: list[tuple[str, str, dict[str, Any]]] = field(default_factory=list)  # (id, name, arguments)


def load_json(text: str | None) -> Any:
    if text is None or text == "":
        return None
    try:
        return json.loads(text)
    except (json.JSONDecodeError, TypeError):
        return None


def _first(attributes: dict[str, str], keys: tuple[str, ...]) -> str | None:
    return next((attributes[k] for k in keys if attributes.get(k) not in (None, "")), None)


def _part_kind(part: dict) -> str | None:
    """text, reasoning or tool_call: a GenAI part says it in `type`; a Gemini part (Gemini CLI's output
    messages and response chunks) by its keys: `functionCall`, or `text` with `thought` for reasoning."""
    if "type" in part:
        return part["type"]
    if "functionCall" in part:
        return "tool_call"
    if "text" in part:
        return "reasoning" if part.get("thought") else "text"
    return None


def _parts_text(parts: Any, kinds: tuple[str, ...]) -> str | None:
    if not isinstance(parts, list):
        return None
    texts = [
        str(p.get("content") if p.get("content") is not None else p.get("text", ""))
        for p in parts
        if isinstance(p, dict) and _part_kind(p) in kinds
    ]
    return "".join(texts) if texts else None


def _tool_call(part: dict) -> tuple[str, str, dict[str, Any]]:
    call = part.get("functionCall") if isinstance(part.get("functionCall"), dict) else part
    return (
        str(call.get("id") or ""),
        str(call.get("name") or ""),
        as_arguments(call.get("arguments", call.get("args"))),
    )


def _output_messages(attributes: dict[str, str]) -> list | None:
    """The model's output messages: GenAI's, or the contents of the response chunks Gemini CLI logs."""
    messages = load_json(attributes.get(A.OUTPUT_MESSAGES))
    if isinstance(messages, list):
        return messages
    chunks = load_json(attributes.get(GEMINI_RESPONSE))
    if isinstance(chunks, list) and chunks and all(isinstance(c, dict) and "candidates" in c for c in chunks):
        return [
            candidate.get("content")
            for chunk in chunks
            for candidate in chunk.get("candidates") or []
            if isinstance(candidate, dict)
        ]
    return None


def _content_text(content: Any) -> str | None:
    """A GenAI 1.30 message's `content`: a string, or parts of which the text ones count."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return _parts_text(content, ("text",))
    return None


def _body_message(event: Event) -> dict | None:
    """The message a GenAI 1.30 message event's body holds (gen_ai.choice's under `message`), else None."""
    if event.source != "otel_logs":
        return None
    body = load_json(event.attributes.get("body"))
    if not isinstance(body, dict):
        return None
    message = body.get("message") if isinstance(body.get("message"), dict) else body
    return message if "content" in message or "tool_calls" in message else None


def _body_tool_call(call: Any) -> tuple[str, str, dict[str, Any]] | None:
    """A 1.30 message's tool call: `{"id", "type": "function", "function": {"name", "arguments"}}`."""
    if not isinstance(call, dict):
        return None
    function = call.get("function") if isinstance(call.get("function"), dict) else call
    return str(call.get("id") or ""), str(function.get("name") or ""), as_arguments(function.get("arguments"))


def flat_messages(attributes: dict[str, str], form: FlatMessages) -> list[tuple[str, str]]:
    """(role, text) of each message flattened into `attributes` (rules.FLAT_INPUT_MESSAGES), in order; a
    message without text has ''."""
    roles = {
        int(m.group(1)): value for key, value in attributes.items() if (m := re.match(form.pattern((form.role,)), key))
    }
    return [
        (
            roles[n],
            next(
                (attributes[f"{form.prefix}{n}{s}"] for s in form.texts if attributes.get(f"{form.prefix}{n}{s}")), ""
            ),
        )
        for n in sorted(roles)
    ]


def _flat_user_turn(attributes: dict[str, str]) -> str | None:
    for form in FLAT_INPUT_MESSAGES:
        messages = flat_messages(attributes, form)
        if messages:
            role, text = messages[-1]
            return text if role == "user" and text else None
    return None


def _flat_tool_calls(attributes: dict[str, str], form: FlatMessages, n: int) -> list[tuple[str, str, dict[str, Any]]]:
    """The tool calls of flattened message n (FlatMessages.tool_calls), in order."""
    calls, id_key, name_key, arguments_key = form.tool_calls
    head = f"{form.prefix}{n}{calls}"
    if not calls:
        return []
    numbers = sorted({int(m.group(1)) for key in attributes if (m := re.match(re.escape(head) + r"([0-9]+)\.", key))})
    return [
        (
            attributes.get(f"{head}{k}{id_key}", ""),
            attributes.get(f"{head}{k}{name_key}", ""),
            as_arguments(attributes.get(f"{head}{k}{arguments_key}")),
        )
        for k in numbers
    ]


def _event_parts(content: str | None) -> list:
    """A span event message's content (rules.MESSAGE_EVENTS): a JSON list of parts, or one text."""
    parts = load_json(content) if (content or "").startswith("[") else None
    return parts if isinstance(parts, list) else [{"text": content}] if content else []


def _parts_of_text(parts: list) -> str:
    return "".join(str(p["text"]) for p in parts if isinstance(p, dict) and p.get("text") is not None)


def _span_event_user_turn(event: Event) -> str | None:
    """A model call's span events (GenAI 1.30 as span events): its last input message when it is the user's."""
    messages = [e for e in event.span_events if e.name in MESSAGE_EVENTS]
    if not messages or messages[-1].name != "gen_ai.user.message":
        return None
    return _parts_of_text(_event_parts(messages[-1].attributes.get("content"))) or None


def _span_event_choice(event: Event) -> ModelOutput | None:
    """The model's output its span's last gen_ai.choice event holds: text parts, and toolUse parts as calls."""
    choices = [e for e in event.span_events if e.name == "gen_ai.choice"]
    if not choices:
        return None
    parts = _event_parts(choices[-1].attributes.get("message"))
    uses = [p["toolUse"] for p in parts if isinstance(p, dict) and isinstance(p.get("toolUse"), dict)]
    return ModelOutput(
        text=_parts_of_text(parts) or None,
        tool_calls=[
            (str(u.get("toolUseId") or ""), str(u.get("name") or ""), as_arguments(u.get("input"))) for u in uses
        ],
    )


def _ai_sdk_user_turn(attributes: dict[str, str]) -> str | None:
    """The Vercel AI SDK's messages (rules.AI_SDK_MESSAGES) of a call that offers tools: the last one's text when
    it is the user's (a text content, or its `text` parts)."""
    messages = load_json(attributes.get(AI_SDK_MESSAGES)) if attributes.get(AI_SDK_TOOLS) else None
    if not isinstance(messages, list) or not messages or not isinstance(messages[-1], dict):
        return None
    last = messages[-1]
    if last.get("role") != "user":
        return None
    content = last.get("content")
    if isinstance(content, str):
        return content or None
    return _parts_text(content, ("text",)) or None


def offers_tools(event: Event) -> bool:
    """Whether a model call tells tools it offered the model (rules.OFFERED_TOOLS)."""
    return any(
        k in OFFERED_TOOLS or k.startswith(tuple(p for p in OFFERED_TOOLS if p.endswith("."))) for k in event.attributes
    )


def new_user_turn(event: Event) -> str | None:
    """The user's new turn a model call carries: the text of its input messages' last message when that is
    the user's text (harborlight/agent/rules.py NEW_TURN_MESSAGES, the rule the agent views derive its
    user_message by), else None (a call that answers a tool result, or replays nothing new)."""
    messages = load_json(event.attributes.get(NEW_TURN_MESSAGES))
    if not isinstance(messages, list) or not messages or not isinstance(messages[-1], dict):
        return _flat_user_turn(event.attributes) or _span_event_user_turn(event) or _ai_sdk_user_turn(event.attributes)
    last = messages[-1]
    if last.get("role") != "user":
        return None
    return (
        _parts_text(last.get("parts"), ("text",))
        if any(isinstance(p, dict) and p.get("type") == "text" for p in last.get("parts") or [])
        else None
    )


# What an agent was asked, as its agent span tells it (OpenInference's AGENT span input.value: plain text, or a JSON
# object of the run's arguments, smolagents' {"task": ..., "stream": false, ...}).
AGENT_INPUT = "input.value"


def agent_inputs(events: list[Event]) -> list[str]:
    """The texts the run's agents were given (Event.resolve "agent": OpenInference AGENT, invoke_agent, ...): an
    agent span's input as text, or each text member of its JSON object."""
    texts: list[str] = []
    for event in events:
        raw = event.attributes.get(AGENT_INPUT) if event.resolve == "agent" else None
        if not raw:
            continue
        parsed = load_json(raw)
        if isinstance(parsed, dict):
            texts += [v for v in parsed.values() if isinstance(v, str) and v]
        elif isinstance(parsed, str) and parsed:
            texts.append(parsed)
        elif parsed is None:
            texts.append(raw)
    return texts


def as_the_agent_was_asked(text: str, inputs: list[str]) -> str:
    """A user turn as the agent was given it: where the model's user message is an agent's input inside the
    framework's template around it (smolagents' `New task:\n<task>`), the input; else the message."""
    found = [s for s in inputs if s != text and (text.endswith(s) or text.startswith(s))]
    return max(found, key=len) if found else text


def user_message(event: Event) -> tuple[str, str]:
    """(role, text) of a user or system message."""
    body = _body_message(event)
    if body is not None and (text := _content_text(body.get("content"))) is not None:
        return "user", text
    messages = load_json(event.attributes.get(A.INPUT_MESSAGES))
    if isinstance(messages, list):
        for message in reversed(messages):
            if isinstance(message, dict) and message.get("role") in ("user", "system"):
                return message["role"], _parts_text(message.get("parts"), ("text",)) or str(
                    message.get("content") or ""
                )
    if (turn := _flat_user_turn(event.attributes) or _span_event_user_turn(event)) is not None:
        return "user", turn
    text = _first(event.attributes, USER_TEXT)
    return "user", "" if text is None or text == event.name else text


def model_output(event: Event) -> ModelOutput:
    out = ModelOutput()
    body = _body_message(event)
    if body is not None:
        text = _content_text(body.get("content"))
        out.text = text or None
        calls = body.get("tool_calls")
        out.tool_calls = [c for c in map(_body_tool_call, calls if isinstance(calls, list) else []) if c]
        return out
    messages = _output_messages(event.attributes)
    if isinstance(messages, list):
        for message in messages:
            if not isinstance(message, dict):
                continue
            parts = message.get("parts") or []
            text = _parts_text(parts, ("text",))
            reasoning = _parts_text(parts, ("reasoning",))
            out.text = text if out.text is None else out.text + (text or "")
            out.reasoning = reasoning if out.reasoning is None else out.reasoning + (reasoning or "")
            for part in parts:
                if isinstance(part, dict) and _part_kind(part) == "tool_call":
                    out.tool_calls.append(_tool_call(part))
        return out
    for form in FLAT_OUTPUT_MESSAGES:
        flat = flat_messages(event.attributes, form)
        if flat:
            out.text = "".join(text for _, text in flat) or None
            out.tool_calls = [c for n in range(len(flat)) for c in _flat_tool_calls(event.attributes, form, n)]
            out.text = out.text or _answer(out.tool_calls)
            return out
    if event.kind in ("llm_request", "output") and (choice := _span_event_choice(event)) is not None:
        return choice
    if event.kind in ("llm_request", "output"):
        text = _first(event.attributes, OUTPUT_TEXT)
        out.text = None if text == event.name else text
    out.reasoning = _first(event.attributes, REASONING_TEXT)
    return out


def _answer(calls: list[tuple[str, str, dict[str, Any]]]) -> str | None:
    """The answer of the first call of an answer tool (rules.ANSWER_TOOLS) whose argument is text, else None."""
    members = dict(ANSWER_TOOLS)
    return next(
        (
            args[members[name]]
            for _, name, args in calls
            if name in members and isinstance(args.get(members[name]), str)
        ),
        None,
    )


def as_arguments(value: Any) -> dict[str, Any]:
    """ATIF arguments are an object: JSON objects as they are, anything else under "input"."""
    if isinstance(value, dict):
        return value
    if isinstance(value, str):
        parsed = load_json(value)
        if isinstance(parsed, dict):
            return parsed
        return {"input": value} if value else {}
    return {} if value is None else {"input": value}


def unwrapped(arguments: dict[str, Any]) -> dict[str, Any]:
    """The tool's own arguments where a framework's wrapper holds them (rules.ARGUMENT_WRAPPERS)."""
    for inner, others in ARGUMENT_WRAPPERS:
        if (
            isinstance(arguments.get(inner), dict)
            and set(arguments) <= {inner, *others}
            and all(v == [] or not isinstance(v, list) for v in arguments.values())
        ):
            return arguments[inner]
    return arguments


def tool_arguments(event: Event) -> dict[str, Any]:
    """The arguments attribute, else (as the `@tool_message_event` alias) its span's gen_ai.tool.message content."""
    told = [e.attributes.get("content") for e in event.span_events if e.name == TOOL_MESSAGE_EVENT]
    return unwrapped(as_arguments(_first(event.attributes, ARGUMENTS) or (told[-1] if told else None)))


def tool_result(event: Event) -> str | None:
    text = _first(event.attributes, RESULT)
    if text is not None:
        return text
    name, keys = TOOL_OUTPUT_EVENT
    for span_event in event.span_events:
        if span_event.name == name:
            found = _first(span_event.attributes, keys)
            if found is not None:
                return found
    return None
