"""A statement's totals (`WITH TOTALS`) and extremes (`extremes = 1`) as Native blocks, for the native TCP
protocol, which sends them in packets of their own. The engine's Native output has neither, its JSONCompact output
both: such a statement runs once as JSONCompact, and the engine itself turns each part back into Native of the
answer's own types (the `format` table function over the JSON rows, no table read). Blocking, on the statement's
session (its settings, `readonly` among them, still applied)."""

import base64
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass

from harborlight.sqlport.sql_session import Output, SqlSession

_WITH_TOTALS = re.compile(r" WITH TOTALS\b")
_EXTREMES_ON = re.compile(r"\bextremes = (1|true)\b", re.I)
_AS_NATIVE = "SELECT * FROM format(JSONCompactEachRow, {structure:String}, base64Decode({rows:String}))"


@dataclass(frozen=True)
class WithTotals:
    body: bytes  # the rows, revision-0 Native
    totals: bytes  # one row, or b"" without totals
    extremes: bytes  # two rows (min, max), or b"" without extremes
    names_and_types: bytes  # JSONCompactEachRowWithNamesAndTypes' first two lines
    output: Output


def asks_totals(canonical: str, settings: Mapping[str, str]) -> bool:
    """Whether a formatted statement (or the settings it runs with) asks for totals or extremes; a mention inside a
    string literal only costs the JSON route."""
    return bool(
        _WITH_TOTALS.search(canonical)
        or _EXTREMES_ON.search(canonical)
        or settings.get("extremes", "").lower() in ("1", "true")
    )


def run_with_totals(session: SqlSession, sql: str, bound: Mapping[str, str]) -> WithTotals:
    out = session.run(sql, "JSONCompact", bound)
    doc = json.loads(out.body)
    names = [column["name"] for column in doc["meta"]]
    types = [column["type"] for column in doc["meta"]]
    structure = ", ".join(f"`{name.replace('`', '``')}` {kind}" for name, kind in zip(names, types, strict=True))

    def native(rows: list) -> bytes:
        if not rows:
            return b""
        text = "\n".join(json.dumps(row) for row in rows).encode()
        return session.run(_AS_NATIVE, "Native", {"structure": structure, "rows": base64.b64encode(text).decode()}).body

    extremes = doc.get("extremes")
    return WithTotals(
        native(doc["data"]),
        native([doc["totals"]]) if "totals" in doc else b"",
        native([extremes["min"], extremes["max"]]) if extremes else b"",
        (json.dumps(names) + "\n" + json.dumps(types) + "\n").encode(),
        out,
    )
