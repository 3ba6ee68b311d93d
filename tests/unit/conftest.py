"""The unit tier: no engine, no sockets, no subprocesses. It runs in under a minute on one core
(`make test-fast`), so a test that needs any of those belongs in another folder, and fails here."""

import socket
import subprocess
import sys

import pytest


class TierBreach(AssertionError):
    """A unit test reached for the engine, the network or another process."""


def _refuse(what: str):
    def refused(*args, **kwargs):
        raise TierBreach(f"a unit test {what}: move it out of tests/unit/")
    return refused


@pytest.fixture(autouse=True)
def _no_engine_sockets_or_processes(monkeypatch):
    """Connecting a socket (TCP or UDP: AF_UNIX socketpairs, as asyncio's loop uses, stay allowed) or
    starting a process fails the test; loading chDB fails it after the fact."""
    connect, connect_ex = socket.socket.connect, socket.socket.connect_ex

    def checked(call):
        def connecting(self, address, *args, **kwargs):
            if self.family in (socket.AF_INET, socket.AF_INET6):
                raise TierBreach(f"a unit test connected to {address}: move it out of tests/unit/")
            return call(self, address, *args, **kwargs)
        return connecting

    monkeypatch.setattr(socket.socket, "connect", checked(connect))
    monkeypatch.setattr(socket.socket, "connect_ex", checked(connect_ex))
    monkeypatch.setattr(subprocess.Popen, "__init__", _refuse("started a process"))
    yield
    assert "chdb" not in sys.modules, "a unit test loaded chDB (the engine): move it out of tests/unit/"
