"""`harborlight serve` on a directory another server holds: one clear line and a non-zero exit."""

import subprocess
import sys

import httpx

from tests.support.servers import SubprocessServer, free_port


def test_second_server_on_a_held_directory_says_so_in_one_line(tmp_path):
    first = SubprocessServer(tmp_path / "store").start()
    try:
        second = subprocess.run(
            [
                sys.executable,
                "-m",
                "harborlight.cli.main",
                "serve",
                "--data-dir",
                str(tmp_path / "store"),
                "--grpc-port",
                str(free_port()),
                "--http-port",
                str(free_port()),
            ],
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert second.returncode == 1
        lines = [line for line in second.stderr.splitlines() if line.startswith("harborlight:")]
        assert second.stderr.strip() == lines[0], second.stderr
        assert "is held by another running harborlight" in lines[0]
        assert "Traceback" not in second.stderr
    finally:
        first.stop()


def test_a_bad_setting_from_the_environment_is_one_line(tmp_path):
    result = subprocess.run(
        [sys.executable, "-m", "harborlight.cli.main", "serve", "--data-dir", str(tmp_path / "s")],
        capture_output=True,
        text=True,
        timeout=60,
        env={"HARBORLIGHT_GRPC_PORT": "four", "PATH": ""},
    )
    assert result.returncode == 2
    assert result.stderr.strip() == "harborlight: HARBORLIGHT_GRPC_PORT must be a whole number, got 'four'"


def test_a_server_that_writes_more_than_a_pipe_holds_keeps_answering(tmp_path):
    """A test's server writes its log where it never waits for a reader: a pipe read only at the end fills at
    64 KiB and then blocks the thread that logs (a keeper retrying with a traceback each time stopped every
    read that waited for it)."""
    noisy = (
        "-c",
        "import sys; sys.stderr.write('x' * (1 << 20)); sys.stderr.flush(); "
        "from harborlight.cli.main import main; sys.exit(main(sys.argv[1:]))",
    )
    server = SubprocessServer(tmp_path / "store", program=noisy).start(timeout=60)
    try:
        assert httpx.get(f"{server.http_url}/healthz", timeout=30).status_code == 200
    finally:
        server.stop()
    assert server.output.count("x") >= 1 << 20
