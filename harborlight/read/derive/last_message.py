"""last_agent_message: the agent's closing message, the text of the last agent step of the trial's ATIF
trajectory (the trajectory the export writes, built from the trial's telemetry)."""

from typing import Any

from harborlight.read.derive.provenance import Valued, measured, unavailable


def _text(message: Any) -> str:
    """A step's message: plain text, or ATIF content parts of which the text parts count."""
    if isinstance(message, list):
        return "".join(str(p.get("text") or "") for p in message if isinstance(p, dict) and p.get("type") == "text")
    return message if isinstance(message, str) else ""


def last_agent_message(trajectory: dict[str, Any] | None, missing: str = "no trajectory recorded") -> Valued[str]:
    """The text of the last agent step that has any; `missing` is the reason when there is no trajectory."""
    if trajectory is None:
        return unavailable(missing)
    texts = [t for s in trajectory.get("steps") or () if s.get("source") == "agent" and (t := _text(s.get("message")))]
    return (
        measured(texts[-1]) if texts else unavailable("no agent step with text: the agent's replies were not recorded")
    )
