"""Real harborlight servers for tests: in this process (a thread with its own event loop) or a subprocess."""

import asyncio
import os
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from contextlib import closing
from dataclasses import dataclass, replace
from pathlib import Path
from typing import IO

import httpx

from harborlight.app import Running, running
from harborlight.settings import Settings


def wait_until_answering(
    process: subprocess.Popen, url: str, timeout: float, what: str, output: Callable[[], str]
) -> None:
    """Returns once GET `url` answers 200; raises with the process's `output` if it exits first, and
    TimeoutError naming `what` after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"{what} exited: {output()}")
        try:
            if httpx.get(url, timeout=1).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.05)
    raise TimeoutError(f"{what} did not answer {url}")


def free_port() -> int:
    with closing(socket.socket()) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class InProcessServer:
    """`harborlight serve` run by the test process; `.store` gives the tests direct SQL access."""

    def __init__(self, settings: Settings) -> None:
        # The memory guard measures the whole process, and the test process holds far more than the
        # server (every test's data, clients, one engine shared by all): give it room.
        # Servers of one test process share its store, never a write-ahead log.
        self.settings = replace(
            settings,
            grpc_port=0,
            http_port=0,
            memory_limit_mib=64 * 1024,
            wal_dir=settings.wal_dir or Path(tempfile.mkdtemp(prefix="harborlight-wal-")),
        )
        self._ready = threading.Event()
        self._stop: asyncio.Event | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._error: BaseException | None = None
        self.run: Running | None = None
        self._thread = threading.Thread(target=self._main, daemon=True)

    def _main(self) -> None:
        async def serve() -> None:
            self._loop = asyncio.get_running_loop()
            self._stop = asyncio.Event()
            async with running(self.settings) as run:
                self.run = run
                self._ready.set()
                await self._stop.wait()

        try:
            asyncio.run(serve())
        except BaseException as exc:  # surfaced to the test by start()
            self._error = exc
            self._ready.set()

    def start(self) -> "InProcessServer":
        self._thread.start()
        self._ready.wait(60)
        if self._error:
            raise self._error
        return self

    def stop(self) -> None:
        if self._loop and self._stop:
            self._loop.call_soon_threadsafe(self._stop.set)
        self._thread.join(60)

    @property
    def store(self):
        """The server's store, for direct reads of everything it acknowledged before."""
        self.caught_up()
        return self.run.store

    @property
    def grpc_endpoint(self) -> str:
        return f"127.0.0.1:{self.run.grpc_port}"

    @property
    def http_url(self) -> str:
        return f"http://127.0.0.1:{self.run.http_port}"

    def caught_up(self, timeout: float = 300) -> None:
        """Waits until everything the server acknowledged is stored and resolved (as its own reads do)."""
        unstored = asyncio.run_coroutine_threadsafe(self.run.caught_up(timeout), self._loop).result()
        assert unstored == 0, f"{unstored} acknowledged requests not stored after {timeout} s"

    def sql(self, query: str, **parameters) -> list[tuple]:
        """A read straight from the store, of everything acknowledged before it."""
        self.caught_up()
        return self.store.client.query(query, parameters=parameters).result_rows


@dataclass
class SubprocessServer:
    """`harborlight serve` as its own process, for tests that kill it."""

    data_dir: Path
    extra_args: tuple[str, ...] = ()
    grpc_port: int = 0
    http_port: int = 0
    process: subprocess.Popen | None = None
    output: str = ""  # what the process wrote to stdout and stderr, once it has been stopped or killed
    program: tuple[str, ...] = ("-m", "harborlight.cli.main")  # what the interpreter runs (bench/ runs a variant)
    # Its output goes to a file, not a pipe: a pipe nobody reads until the end fills at 64 KiB, and then the
    # server's next log line blocks whichever of its threads writes it (a keeper logging its retries stopped
    # every read that waited for it).
    _output_file: IO[bytes] | None = None

    def start(self, timeout: float = 60) -> "SubprocessServer":
        self.launch()
        try:
            wait_until_answering(self.process, f"{self.http_url}/healthz", timeout, "server", self.written)
        except BaseException:
            self.kill()
            raise
        return self

    def launch(self) -> None:
        """Starts the process, not waiting for it to answer."""
        self.grpc_port, self.http_port = free_port(), free_port()
        self._output_file = tempfile.TemporaryFile()  # noqa: SIM115 (closed once the process has ended)
        self.process = subprocess.Popen(
            [
                sys.executable,
                *self.program,
                "serve",
                "--data-dir",
                str(self.data_dir),
                "--grpc-port",
                str(self.grpc_port),
                "--http-port",
                str(self.http_port),
                *self.extra_args,
            ],
            stdout=self._output_file,
            stderr=subprocess.STDOUT,
            env={**os.environ, "PYTHONUNBUFFERED": "1"},
        )

    def written(self) -> str:
        """What the process has written so far."""
        self._output_file.seek(0)
        return self._output_file.read().decode(errors="replace")

    @property
    def grpc_endpoint(self) -> str:
        return f"127.0.0.1:{self.grpc_port}"

    @property
    def http_url(self) -> str:
        return f"http://127.0.0.1:{self.http_port}"

    def caught_up(self, timeout: float = 300) -> None:
        """Waits until everything the server acknowledged is stored: its API's reads wait for that, up to the
        server's --max-commit-lag-seconds, and then answer with what they could not see yet; on a loaded machine
        the log may take longer, so this asks again until `timeout`."""
        deadline = time.monotonic() + timeout
        while True:
            answer = httpx.get(f"{self.http_url}/api/ingest", params={"service": ""}, timeout=timeout)
            assert answer.status_code == 200, answer.text
            if "x-harborlight-unstored-requests" not in answer.headers:
                return
            assert time.monotonic() < deadline, answer.text

    def kill(self) -> None:
        self.process.send_signal(signal.SIGKILL)
        self._ended(30)

    def stop(self, timeout: float = 60) -> int:
        self.process.send_signal(signal.SIGTERM)
        return self._ended(timeout)

    def _ended(self, timeout: float) -> int:
        """Waits for the process to exit and keeps what it wrote (`output`)."""
        self.process.wait(timeout=timeout)
        self.output = self.written()
        self._output_file.close()
        return self.process.returncode
