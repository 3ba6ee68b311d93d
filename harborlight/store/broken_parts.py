"""Parts the engine found damaged and set aside: moved to a table's detached/ directory as `broken*` (at start,
`broken-on-start_<part>`), their rows no longer answer any query, and the engine says so only in its own log.

system.detached_parts names them but holds no row counts; a part's count.txt does. Embedded, it is read from
the part's directory; a server's disk is not ours to read, so there its rows are unknown (None), as they are for
a part whose count.txt is itself damaged.
"""

from dataclasses import dataclass
from pathlib import Path

from clickhouse_connect.driver.exceptions import DatabaseError

from harborlight.store.client import Store

_BROKEN = """
SELECT database, table, name, reason, path FROM system.detached_parts
WHERE startsWith(reason, 'broken') AND database = currentDatabase()
ORDER BY database, table, name"""


@dataclass(frozen=True)
class BrokenPart:
    table: str  # database.table
    name: str  # its directory under detached/
    reason: str  # the engine's: broken-on-start, broken, broken-from-backup
    rows: int | None  # None: unknown


def broken_parts(store: Store) -> list[BrokenPart] | None:
    """The store's damaged parts, as the engine lists them now; None when it will not list them (a server's user
    without access to system.detached_parts)."""
    try:
        listed = store.client.query(_BROKEN).result_rows
    except DatabaseError:
        return None
    return [
        BrokenPart(f"{database}.{table}", name, reason, _rows(store, path))
        for database, table, name, reason, path in listed
    ]


def rows_of(parts: list[BrokenPart]) -> int | None:
    """Their rows in all; None when any part's are unknown."""
    counts = [part.rows for part in parts]
    return None if None in counts else sum(counts)


def describe(parts: list[BrokenPart]) -> str:
    """One log line naming them."""
    rows = rows_of(parts)
    named = ", ".join(f"{p.table} {p.name} ({'unknown' if p.rows is None else p.rows} rows)" for p in parts)
    return (
        f"{len(parts)} damaged part(s) set aside by the engine: {'an unknown number of' if rows is None else rows} "
        f"rows no query answers ({named})"
    )


def _rows(store: Store, path: str) -> int | None:
    if not store.embedded:
        return None
    try:
        return int((Path(path) / "count.txt").read_text())
    except (OSError, ValueError):
        return None
