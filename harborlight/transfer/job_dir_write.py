"""Writing an exported job: into DIR/<job>/ (replacing an earlier export of it) or as a .tar.gz.

The directory is built beside the target and swapped in, so a reader never sees half a job. An
existing DIR/<job> that harborlight did not write is left alone (TransferError).
"""

import gzip
import io
import shutil
import tarfile
import tempfile
from pathlib import Path

from harborlight.transfer.errors import TransferError

MARKER = ".harborlight-export"  # a hidden file: Harbor's readers look at sub-directories only


def write_job_dir(out: Path, job: str, files: dict[str, bytes]) -> Path:
    target = out / job
    if target.exists() and not (target / MARKER).is_file():
        raise TransferError(f"{target} exists and was not written by harborlight export-job; choose another --out")
    out.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{job}.", dir=out))
    try:
        for relative, data in files.items():
            path = staging / relative
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)
        (staging / MARKER).write_text("written by harborlight export-job; exporting again replaces this directory\n")
        old = None
        if target.exists():
            old = out / f".{job}.old"
            shutil.rmtree(old, ignore_errors=True)
            target.rename(old)
        staging.rename(target)
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return target


def tarball(job: str, files: dict[str, bytes]) -> bytes:
    """A reproducible .tar.gz of `job/<files>` (fixed times and owners: same files, same bytes)."""
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w", format=tarfile.PAX_FORMAT) as tar:
        added: set[str] = set()
        for relative in sorted(files):
            for parent in reversed(Path(job, relative).parents[:-1]):
                if str(parent) not in added:
                    added.add(str(parent))
                    tar.addfile(_info(str(parent), 0, directory=True))
            data = files[relative]
            tar.addfile(_info(f"{job}/{relative}", len(data)), io.BytesIO(data))
    return gzip.compress(raw.getvalue(), mtime=0)


def _info(name: str, size: int, directory: bool = False) -> tarfile.TarInfo:
    info = tarfile.TarInfo(name)
    info.size, info.mtime, info.uid, info.gid, info.uname, info.gname = size, 0, 0, 0, "", ""
    info.type, info.mode = (tarfile.DIRTYPE, 0o755) if directory else (tarfile.REGTYPE, 0o644)
    return info


def extract_job(data: bytes, out: Path, job: str) -> Path:
    """The files of a tarball from the API, written like a local export."""
    files: dict[str, bytes] = {}
    try:
        with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as tar:
            for member in tar.getmembers():
                if not member.isfile():
                    continue
                path = Path(member.name)
                if path.is_absolute() or ".." in path.parts or path.parts[0] != job:
                    raise TransferError(f"the server sent an unexpected path {member.name!r}")
                files[str(Path(*path.parts[1:]))] = tar.extractfile(member).read()
    except (tarfile.TarError, OSError, EOFError) as exc:
        raise TransferError(f"the server sent an unreadable archive: {exc}") from None
    return write_job_dir(out, job, files)
