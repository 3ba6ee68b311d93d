"""Localization (SWE-bench): the files the agent edited against the files the gold patch changes.

The gold patch is the task's reference fix as its dataset recorded it (SWE-bench's instance `patch`,
a unified diff). Its files are read with unidiff, the parser SWE-bench's own harness uses; paths are
repository-relative (git's `a/` and `b/` prefixes dropped), the form `files_touched` takes inside a
known workspace root.
"""

from __future__ import annotations

from dataclasses import dataclass

from unidiff.errors import UnidiffParseError
from unidiff.patch import PatchSet

from harborlight.read.derive.provenance import Valued, inferred, unavailable

NO_GOLD_PATCH = "no gold patch recorded (a SWE-bench task's tests/config.json `patch`)"


@dataclass(frozen=True, slots=True)
class Localization:
    hit: tuple[str, ...]  # gold-patch files the agent edited
    missed: tuple[str, ...]  # gold-patch files it never edited: the fix it never went near
    extra: tuple[str, ...]  # files it edited that the gold patch leaves alone


def patch_files(patch: str) -> tuple[str, ...]:
    """The files a unified diff changes, sorted (unidiff's `path`: a deleted file by its old path, any other
    by its new one)."""
    return tuple(sorted({f.path for f in PatchSet(patch)}))


def derive_localization(files_touched: Valued[tuple[str, ...]], gold_patch: str | None) -> Valued[Localization]:
    """hit / missed / extra of the agent's edited files against the gold patch's; null without either."""
    if not gold_patch:
        return unavailable(NO_GOLD_PATCH)
    try:
        gold = set(patch_files(gold_patch))
    except UnidiffParseError as error:
        return unavailable(f"the gold patch is not a unified diff: {error}")
    if not gold:
        return unavailable("the gold patch changes no file")
    if files_touched.value is None:
        return unavailable(files_touched.note or "no edited files recorded")
    touched = set(files_touched.value)
    return inferred(
        Localization(
            hit=tuple(sorted(touched & gold)), missed=tuple(sorted(gold - touched)), extra=tuple(sorted(touched - gold))
        )
    )
