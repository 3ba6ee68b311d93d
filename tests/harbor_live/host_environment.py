"""A Harbor environment made for the tests: each trial runs on the host, in a directory of its own.

Harbor's environments are containers; this one maps the container's absolute paths onto the host
instead: the agent and verifier log directories onto the trial's own (Harbor's automatic mounts, so
Harbor reads them in place) and every other absolute path Harbor names (/tests, /app, /solution,
/logs) under the trial's sandbox directory. Commands run with bash; their paths, and those in the files copied
in, are rewritten."""

import asyncio
import contextlib
import re
import shutil
from pathlib import Path

from harbor.environments.base import BaseEnvironment, ExecResult
from harbor.environments.capabilities import EnvironmentCapabilities

_ROOTS = ("/tests", "/app", "/solution", "/logs", "/runtime", "/installed-agent", "/tmp/harbor")


class HostEnvironment(BaseEnvironment):
    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **{**kwargs, "auto_mounting": True})

    @staticmethod
    def type() -> str:
        return "host"

    @property
    def capabilities(self) -> EnvironmentCapabilities:
        return EnvironmentCapabilities(mounted=True)

    def _validate_definition(self) -> None:
        pass

    @property
    def _sandbox(self) -> Path:
        return self.trial_paths.trial_dir / "sandbox"

    def _prefixes(self) -> list[tuple[str, str]]:
        mounts = [(m["target"], m["source"]) for m in self._host_mounts if m.get("type") == "bind"]
        mounts += [(root, str(self._sandbox) + root) for root in _ROOTS]
        return sorted(mounts, key=lambda m: -len(m[0]))

    def host_path(self, path: str) -> str:
        for target, source in self._prefixes():
            if path == target or path.startswith(target.rstrip("/") + "/"):
                return source + path[len(target) :]
        return path

    def _rewrite(self, command: str) -> str:
        for target, source in self._prefixes():
            command = re.sub(
                rf"(?<![\w./-]){re.escape(target)}(?=[/\s'\";|&)]|$)", source.replace("\\", r"\\"), command
            )
        return command

    async def start(self, force_build: bool) -> None:
        for root in _ROOTS:
            Path(self.host_path(root)).mkdir(parents=True, exist_ok=True)

    async def stop(self, delete: bool) -> None:
        if delete:
            shutil.rmtree(self._sandbox, ignore_errors=True)

    def _copy_in(self, source: Path, target: Path) -> None:
        """A file copied in, a script's container paths mapped as a command's are."""
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(source, target)
        with contextlib.suppress(UnicodeDecodeError):
            target.write_text(self._rewrite(source.read_text()))

    async def upload_file(self, source_path, target_path: str) -> None:
        self._copy_in(Path(source_path), Path(self.host_path(target_path)))

    async def upload_dir(self, source_dir, target_dir: str) -> None:
        for source in Path(source_dir).rglob("*"):
            if source.is_file():
                self._copy_in(source, Path(self.host_path(target_dir)) / source.relative_to(source_dir))

    async def download_file(self, source_path: str, target_path) -> None:
        Path(target_path).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(self.host_path(source_path), target_path)

    async def download_dir(self, source_dir: str, target_dir) -> None:
        shutil.copytree(self.host_path(source_dir), target_dir, dirs_exist_ok=True)

    async def exec(
        self,
        command: str,
        cwd: str | None = None,
        env: dict[str, str] | None = None,
        timeout_sec: int | None = None,
        user: str | int | None = None,
    ) -> ExecResult:
        merged = self._merge_env(env) or {}
        process = await asyncio.create_subprocess_exec(
            "bash",
            "-c",
            self._rewrite(command),
            cwd=self.host_path(cwd) if cwd else str(self.host_path("/app")),
            env={"PATH": "/usr/bin:/bin", **merged},
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
        )
        stdout, stderr = await asyncio.wait_for(process.communicate(), timeout_sec)
        return ExecResult(
            stdout=stdout.decode(errors="replace"),
            stderr=stderr.decode(errors="replace"),
            return_code=process.returncode,
        )
