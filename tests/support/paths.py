"""Where the repository's files are, for tests that read them (README, docs/, examples/), wherever the test sits."""

from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
