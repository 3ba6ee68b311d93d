"""Every read of a Harbor job directory (or a task directory) goes through here: only regular files
inside the directory are read, each within a size limit.

A path whose real location (symbolic links resolved) is outside the directory is refused, and so is
anything that is not a regular file (a FIFO would hang the read, a device such as /dev/zero would fill
memory): its type is checked with stat before it is opened, the open walks the resolved path one
component at a time from the directory's own descriptor with O_NOFOLLOW (a component swapped for a link
meanwhile fails to open instead of leading out) and O_NONBLOCK, and the opened file is checked again.
A file over its kind's limit is refused from its size, before any byte is read, and a file that grows
while read is cut at the limit plus one byte and refused.

A refusal is a `Refused` (a TransferError): one line naming the file and why.
"""

import os
import stat
from dataclasses import dataclass
from pathlib import Path

from harborlight.transfer.errors import TransferError

MIB = 1 << 20
_DIRECTORY_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_FILE_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC


class Refused(TransferError):
    """A file the import does not read: the message is `PATH: refused: why`."""


@dataclass(frozen=True)
class FileLimits:
    """The largest file of each kind an import reads (the import_max_* settings, in bytes)."""

    json_bytes: int = 64 * MIB  # config.json, result.json, lock.json, verifier/report.json, a task's tests/config.json
    trajectory_bytes: int = 256 * MIB  # agent/trajectory.json
    log_bytes: int = 256 * MIB  # job.log, trial.log


@dataclass(frozen=True)
class FileRead:
    data: bytes
    mtime_ns: int


def _kind(mode: int) -> str:
    for test, name in (
        (stat.S_ISDIR, "a directory"),
        (stat.S_ISFIFO, "a FIFO"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
        (stat.S_ISSOCK, "a socket"),
        (stat.S_ISLNK, "a symbolic link"),
    ):
        if test(mode):
            return name
    return "not a regular file"


def _size(n: int) -> str:
    return f"{n / MIB:,.1f} MiB" if n >= MIB else f"{n:,} bytes"


class ConfinedDir:
    """A directory whose files are read only from inside it. `shown` is how paths are named in messages
    (the directory as the user gave it); reads resolve against its real location."""

    def __init__(self, path: Path) -> None:
        self.shown = path
        self.root = os.path.realpath(path)

    def _inside(self, real: str) -> bool:
        return real == self.root or real.startswith(self.root.rstrip(os.sep) + os.sep)

    def _resolve(self, relative: str) -> str | None:
        """The real path of `relative`, None when nothing is there; Refused when it leads outside."""
        where = os.path.join(self.root, relative)
        try:
            os.lstat(where)
        except (FileNotFoundError, NotADirectoryError):
            return None
        real = os.path.realpath(where)
        if not self._inside(real):
            raise Refused(f"{self.shown / relative}: refused: a symbolic link to {real}, outside {self.shown}")
        return real

    def read(self, relative: str, limit: int, setting: str) -> FileRead | None:
        """The bytes of the regular file at `relative` (None when there is none); Refused when it is not a
        regular file inside the directory or is larger than `limit` (`setting` names the limit's flag)."""
        shown = self.shown / relative
        real = self._resolve(relative)
        if real is None:
            return None
        try:
            mode = os.stat(real).st_mode
        except FileNotFoundError:  # a link to nothing
            return None
        if not stat.S_ISREG(mode):
            raise Refused(f"{shown}: refused: {_kind(mode)}, not a regular file")
        try:
            fd = self._open(shown, os.path.relpath(real, self.root))
        except OSError as exc:
            raise TransferError(f"{shown}: cannot read ({exc.strerror or exc})") from None
        try:
            status = os.fstat(fd)
            if not stat.S_ISREG(status.st_mode):
                raise Refused(f"{shown}: refused: {_kind(status.st_mode)}, not a regular file")
            if status.st_size > limit:
                raise Refused(f"{shown}: refused: {_size(status.st_size)}, over the {_size(limit)} limit ({setting})")
            os.set_blocking(fd, True)
            chunks, total = [], 0
            try:
                while total <= limit and (chunk := os.read(fd, min(MIB, limit + 1 - total))):
                    chunks.append(chunk)
                    total += len(chunk)
            except OSError as exc:
                raise TransferError(f"{shown}: cannot read ({exc.strerror or exc})") from None
            if total > limit:
                raise Refused(f"{shown}: refused: it grew past the {_size(limit)} limit while read ({setting})")
            return FileRead(b"".join(chunks), status.st_mtime_ns)
        finally:
            os.close(fd)

    def _open(self, shown: Path, relative: str) -> int:
        """Opens the resolved relative path component by component, following no link."""
        parts = [p for p in relative.split(os.sep) if p not in ("", ".")]
        fd = os.open(self.root, _DIRECTORY_FLAGS)
        try:
            for index, part in enumerate(parts):
                last = index == len(parts) - 1
                try:
                    following = os.open(part, _FILE_FLAGS if last else _DIRECTORY_FLAGS, dir_fd=fd)
                except OSError as exc:
                    raise Refused(f"{shown}: refused: it changed while opened ({exc.strerror})") from None
                os.close(fd)
                fd = following
            return fd
        except BaseException:
            os.close(fd)
            raise

    def directories(self) -> tuple[list[str], list[str]]:
        """(names of the sub-directories inside, not hidden; a refusal line for each one whose link leads out)."""
        names, refused = [], []
        try:
            entries = sorted(os.scandir(self.root), key=lambda e: e.name)
        except OSError as exc:
            raise TransferError(f"{self.shown}: cannot list ({exc.strerror or exc})") from None
        for entry in entries:
            if entry.name.startswith("."):
                continue
            try:
                real = self._resolve(entry.name)
            except Refused as exc:
                if entry.is_dir():  # only directories are read as trials; other links are never opened
                    refused.append(str(exc))
                continue
            if real is not None and os.path.isdir(real):
                names.append(entry.name)
        return names, refused

    def is_file(self, relative: str) -> bool:
        """Whether something other than a directory is at `relative`, a link included (reading it is what
        refuses a link that leads out)."""
        try:
            return not stat.S_ISDIR(os.lstat(os.path.join(self.root, relative)).st_mode)
        except (FileNotFoundError, NotADirectoryError):
            return False

    def holds_a_file(self, relative: str) -> bool:
        """Whether the directory at `relative` holds a regular file at any depth (links are not followed)."""
        try:
            real = self._resolve(relative)
        except Refused:
            return False
        if real is None or not os.path.isdir(real):
            return False
        for folder, _, files in os.walk(real):
            for name in files:
                try:
                    if stat.S_ISREG(os.lstat(os.path.join(folder, name)).st_mode):
                        return True
                except OSError:
                    continue
        return False
