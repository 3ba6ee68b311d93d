"""Real full file systems for the fault tests: a small tmpfs mounted in a temporary directory (unmounted
after), filled by a filler file until the kernel says ENOSPC, and freed again."""

import errno
import os
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest


def _mount_tmpfs(directory: Path, size_kib: int) -> str | None:
    """Mounts; returns why not when the machine does not let this process mount."""
    if os.geteuid() != 0:
        return "mounting a tmpfs needs root"
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={size_kib}k,mode=0700", "tmpfs", str(directory)],
        capture_output=True,
        text=True,
    )
    return None if done.returncode == 0 else f"mount -t tmpfs is not permitted here: {done.stderr.strip()}"


@contextmanager
def small_tmpfs(size_kib: int) -> Iterator[Path]:
    """A tmpfs of `size_kib` KiB, mounted for the block's time; the test is skipped, with the reason, where the
    machine cannot mount."""
    directory = Path(tempfile.mkdtemp(prefix="harborlight-full-"))
    why_not = _mount_tmpfs(directory, size_kib)
    if why_not:
        directory.rmdir()
        pytest.skip(why_not)
    try:
        yield directory
    finally:
        subprocess.run(["umount", "-l", str(directory)], check=False)
        directory.rmdir()


def free_bytes(directory: Path) -> int:
    fs = os.statvfs(directory)
    return fs.f_bavail * fs.f_frsize


def fill(directory: Path, name: str = "filler") -> Path:
    """Writes a file in `directory` until its file system has no byte left; returns it. Called again, it takes
    whatever was freed since."""
    path = directory / name
    with open(path, "ab", buffering=0) as f:
        for chunk in (1 << 20, 64 << 10, 4 << 10, 512, 1):
            while True:
                try:
                    f.write(b"\0" * chunk)
                except OSError as exc:
                    if exc.errno != errno.ENOSPC:
                        raise
                    break
    return path


def free(path: Path) -> None:
    path.unlink(missing_ok=True)
