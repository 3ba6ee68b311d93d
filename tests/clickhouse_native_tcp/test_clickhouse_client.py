"""The native TCP port as `clickhouse-client` reads it: the only build any registry here ships is Debian's
clickhouse-client 18.16.1 (`apt-get install clickhouse-client`, revision 54412: settings in their binary form, no
addendum, no serialization byte). Skipped where it is not installed."""

import shutil
import subprocess

import pytest

pytestmark = pytest.mark.skipif(shutil.which("clickhouse-client") is None, reason="clickhouse-client is not installed")


def client(port: int, sql: str, *flags: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [
            "clickhouse-client",
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            "--user",
            "grafana",
            "--password",
            "tcp-acme",
            *flags,
            "--query",
            sql,
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_select_and_many_blocks(tcp_port):
    one = client(tcp_port, "SELECT 1")
    assert (one.returncode, one.stdout) == (0, "1\n"), one.stderr
    many = client(tcp_port, "SELECT number, toString(number) FROM numbers(100000)", "--max_block_size", "10000")
    lines = many.stdout.splitlines()
    assert many.returncode == 0 and len(lines) == 100_000 and lines[-1] == "99999\t99999"


def test_compressed_answers(tcp_port):
    answer = client(tcp_port, "SELECT sum(number) FROM numbers(100000)", "--compression", "1")
    assert (answer.returncode, answer.stdout) == (0, "4999950000\n"), answer.stderr


def test_an_exception_is_the_exit_status_and_message(tcp_port):
    answer = client(tcp_port, "SELECT * FROM no_such_table")
    assert answer.returncode == 60 and "UNKNOWN_TABLE" in answer.stderr
    refused = client(tcp_port, "INSERT INTO otel_logs (Body) VALUES ('x')")
    assert refused.returncode == 164


def test_a_wrong_password_is_refused(tcp_port):
    answer = subprocess.run(
        ["clickhouse-client", "--port", str(tcp_port), "--password", "nope", "--query", "SELECT 1"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert answer.returncode == 516 % 256 and "Code: 516" in answer.stderr  # an exit status is a byte
