"""The raw telemetry of real agent runs kept as fixtures, and what the fake provider served in each.

fixtures/<agent>-<version>-<episode>-<protocol>[-logs].jsonl holds the export requests exactly as harborlight
received them (the Collector file exporter's OTLP/JSON lines, `harborlight import otlp` reads them);
the .served.json beside it says which responses the fake gave (script turns and side calls) and who ran.
Re-record with `python -m tests.real_agents.record` (see there).
"""

import json
from dataclasses import asdict, dataclass
from pathlib import Path

from tests.real_agents.episodes import Episode, episode

FIXTURES = Path(__file__).parent / "fixtures"
# Recordings run in fixed places, so a re-recording differs only where the agent changed.
RECORDING_ROOT = Path("/tmp/harborlight-real-agents")


@dataclass(frozen=True)
class ServedCall:
    model: str
    response_id: str
    turn: int | None  # index into the episode's turns; None for a side call

    @property
    def side(self) -> bool:
        return self.turn is None


@dataclass(frozen=True)
class Recording:
    agent: str
    version: str
    episode_name: str
    protocol: str
    traces: bool
    job: str
    trial: str
    workspace: str
    served: list[ServedCall]
    reported_cost_usd: float | None = None  # the agent's own total, where it reports one

    @property
    def stem(self) -> str:
        """<agent>-<version>-<episode>-<protocol>, and -logs for a run that sent no spans."""
        return f"{self.agent}-{self.version}-{self.episode_name}-{self.protocol}" + ("" if self.traces else "-logs")

    @property
    def episode(self) -> Episode:
        return episode(self.agent, self.episode_name, Path(self.workspace))

    def save(self, lines: list[str]) -> Path:
        FIXTURES.mkdir(exist_ok=True)
        (FIXTURES / f"{self.stem}.jsonl").write_text("".join(line + "\n" for line in lines))
        (FIXTURES / f"{self.stem}.served.json").write_text(json.dumps(asdict(self), indent=1) + "\n")
        return FIXTURES / f"{self.stem}.jsonl"


def load(stem: str) -> tuple[Recording, Path]:
    document = json.loads((FIXTURES / f"{stem}.served.json").read_text())
    document["served"] = [ServedCall(**s) for s in document["served"]]
    return Recording(**document), FIXTURES / f"{stem}.jsonl"


def stems() -> list[str]:
    return sorted(p.name.removesuffix(".served.json") for p in FIXTURES.glob("*.served.json"))
