"""Writes every statement of a resolution (harborlight/summaries/resolve.py `statements`) into
harborlight/summaries/sql/<name>.sql, as a store of this code's schema runs them: a change of the twins, identity,
tree or rollup rule shows in a diff as the SQL the keeper runs. tests/summaries/test_resolution_sql_files.py keeps
the files equal to what the code renders over a store's columns. Regenerate with
`python -m harborlight.summaries.sql_files` (it opens a fresh embedded store in a temporary directory).
"""

import tempfile
from pathlib import Path

from harborlight.store import ensure_schema, open_client
from harborlight.summaries.resolve import agent_columns, statements

DIRECTORY = Path(__file__).resolve().parent / "sql"
HEADER = (
    "-- Written by `python -m harborlight.summaries.sql_files` (harborlight/summaries/resolve.py): edit the code.\n"
)


def files_text(columns: list[str]) -> dict[str, str]:
    """Each file's name and text."""
    return {f"{name}.sql": HEADER + text.strip() + "\n" for name, text in statements(columns).items()}


def main() -> None:
    with tempfile.TemporaryDirectory() as directory:
        client = open_client(Path(directory)).client
        ensure_schema(client)
        written = files_text(agent_columns(client))
        client.close()
    DIRECTORY.mkdir(exist_ok=True)
    for stale in set(p.name for p in DIRECTORY.glob("*.sql")) - set(written):
        (DIRECTORY / stale).unlink()
    for name, text in written.items():
        (DIRECTORY / name).write_text(text)
    print(f"wrote {len(written)} statements into {DIRECTORY}")


if __name__ == "__main__":
    main()
