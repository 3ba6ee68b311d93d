"""The Python agent frameworks under test, each in a venv of its own: their drivers, modes, pinned
requirements, venvs and recordings. Stdlib only: `python -m tests.frameworks.venvs` builds the venvs with
nothing else installed.
"""

import re
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).parent
FIXTURES = HERE / "fixtures"
REQUIREMENTS = HERE / "requirements"
VENVS = HERE / ".venvs"


@dataclass(frozen=True)
class Framework:
    name: str  # its venv, requirements/<name>.txt and recordings are named so
    package: str  # the distribution whose pinned version names the recordings
    driver: str  # module tests.frameworks.<driver>
    modes: dict[str, dict[str, str]] = field(default_factory=lambda: {"": {}})  # mode ("" the default) -> env

    @property
    def python(self) -> Path:
        return VENVS / self.name / "bin" / "python"

    @property
    def installed(self) -> bool:
        """Its venv is built from the current requirements (the builder copies them in last)."""
        stamp = VENVS / self.name / "requirements.txt"
        return (
            self.python.exists()
            and stamp.exists()
            and stamp.read_text() == (REQUIREMENTS / f"{self.name}.txt").read_text()
        )

    @property
    def version(self) -> str:
        pins = (REQUIREMENTS / f"{self.name}.txt").read_text()
        found = re.search(rf"^{re.escape(self.package)}(?:\[[^\]]*\])?==(\S+)", pins, re.M | re.I)
        assert found, f"{self.package} is not pinned in requirements/{self.name}.txt"
        return found[1]


FRAMEWORKS = {
    f.name: f
    for f in [
        Framework(
            "openai-agents",
            "openai-agents",
            "openai_agents_run",
            {"": {}, "with-openai-client": {"WITH_OPENAI_CLIENT_INSTRUMENTATION": "1"}},
        ),
        Framework("pydantic-ai", "pydantic-ai-slim", "pydantic_ai_run"),
        Framework("langgraph", "langgraph", "langgraph_run"),
        Framework(
            "strands",
            "strands-agents",
            "strands_run",
            {"": {}, "latest-experimental": {"OTEL_SEMCONV_STABILITY_OPT_IN": "gen_ai_latest_experimental"}},
        ),
        Framework(
            "google-adk",
            "google-adk",
            "google_adk_run",
            {"": {}, "content": {"OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT": "SPAN_AND_EVENT"}},
        ),
        Framework("smolagents", "smolagents", "smolagents_run"),
        Framework("traceloop", "traceloop-sdk", "traceloop_run"),
    ]
}
# (framework, mode) in priority order
CASES = [(f.name, mode) for f in FRAMEWORKS.values() for mode in f.modes]


def case_id(name: str, mode: str) -> str:
    return f"{name}-{mode}" if mode else name


def fixture_path(name: str, mode: str) -> Path:
    return FIXTURES / f"{name}-{FRAMEWORKS[name].version}{f'-{mode}' if mode else ''}.jsonl"


def fixture_names(name: str, mode: str) -> tuple[str, str, str]:
    """(service, job, trial) a recording of the framework's mode was made under."""
    stem = case_id(name, mode)
    return stem, f"fixture-{stem}", f"{stem}__1"


def mode_of(path: Path, name: str) -> str:
    rest = path.stem[len(name) + 1 :]  # <version>[-<mode>]
    return rest.partition("-")[2] if "-" in rest else ""
