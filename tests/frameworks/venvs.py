"""Builds (or reuses) each framework's venv, tests/frameworks/.venvs/<name>, from requirements/<name>.txt.

    .venv/bin/python -m tests.frameworks.venvs [name ...]     # all by default

A venv whose stamp (a copy of its requirements, written last) matches is reused as it is; any other is made
afresh. Wheels only (no builds), and no resolving: a requirements file pins its venv's whole closure (pip freeze),
so pip installs it --no-deps. pip's cache (~/.cache/pip, or PIP_CACHE_DIR) is shared by all of them; four venvs
are built at a time (the time goes to downloads and unpacking). Exits 1 if any failed; a test of a framework whose
venv is missing is skipped.
"""

import shutil
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor

from tests.frameworks.frameworks import FRAMEWORKS, REQUIREMENTS, VENVS, Framework


def build(framework: Framework) -> str:
    if framework.installed:
        return f"{framework.name}: up to date"
    start = time.monotonic()
    venv = VENVS / framework.name
    shutil.rmtree(venv, ignore_errors=True)
    requirements = REQUIREMENTS / f"{framework.name}.txt"
    base = getattr(sys, "_base_executable", sys.executable)
    for command in (
        [base, "-m", "venv", str(venv)],
        [
            str(venv / "bin" / "python"),
            "-m",
            "pip",
            "install",
            "--quiet",
            "--disable-pip-version-check",
            "--only-binary=:all:",
            "--no-deps",
            "-r",
            str(requirements),
        ],
    ):
        done = subprocess.run(command, capture_output=True, text=True)
        if done.returncode != 0:
            return f"{framework.name}: FAILED ({' '.join(command[:4])} ...)\n{done.stdout[-2000:]}{done.stderr[-4000:]}"
    shutil.copyfile(requirements, venv / "requirements.txt")
    return f"{framework.name}: built in {time.monotonic() - start:.0f} s"


def main(names: list[str]) -> int:
    VENVS.mkdir(exist_ok=True)
    with ThreadPoolExecutor(max_workers=4) as pool:
        reports = list(pool.map(build, [FRAMEWORKS[n] for n in names]))
    print("\n".join(reports))
    return 1 if any("FAILED" in r for r in reports) else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:] or list(FRAMEWORKS)))
