"""The unit tier: no engine, no sockets, no subprocesses. It runs in under a minute on one core
(`make test-fast`), so a test that needs any of those belongs in another folder, and fails here."""

import socket
import subprocess
import sys
import threading

import pytest


class TierBreach(AssertionError):
    """A unit test reached for the engine, the network or another process."""


@pytest.fixture(autouse=True)
def _no_engine_sockets_or_processes(monkeypatch):
    """Connecting a socket (TCP or UDP: AF_UNIX socketpairs, as asyncio's loop uses, stay allowed) or
    starting a process from the test's thread fails the test; loading chDB during it fails it after the fact.
    Other threads are left alone: in `make test` a worker may hold another tier's servers beside this test."""
    test_thread = threading.current_thread()
    connect, connect_ex, popen = socket.socket.connect, socket.socket.connect_ex, subprocess.Popen.__init__

    def checked(call):
        def connecting(self, address, *args, **kwargs):
            if self.family in (socket.AF_INET, socket.AF_INET6) and threading.current_thread() is test_thread:
                raise TierBreach(f"a unit test connected to {address}: move it out of tests/unit/")
            return call(self, address, *args, **kwargs)

        return connecting

    def starting(self, *args, **kwargs):
        if threading.current_thread() is test_thread:
            raise TierBreach("a unit test started a process: move it out of tests/unit/")
        return popen(self, *args, **kwargs)

    monkeypatch.setattr(socket.socket, "connect", checked(connect))
    monkeypatch.setattr(socket.socket, "connect_ex", checked(connect_ex))
    monkeypatch.setattr(subprocess.Popen, "__init__", starting)
    engine_before = "chdb" in sys.modules
    yield
    assert engine_before or "chdb" not in sys.modules, (
        "a unit test loaded chDB (the engine): move it out of tests/unit/"
    )
