"""Full disks on real file systems (small tmpfs mounts, filled by a filler file): the store's data disk, the
write-ahead log's disk, and a SIGKILL while either disk is full. Every request the client saw refused was
refused retryably (HTTP 429/503 with Retry-After, gRPC UNAVAILABLE/RESOURCE_EXHAUSTED with RetryInfo), and
after space returns every acknowledged span is stored exactly once (counted by each request's job name),
without a restart where none happened; nothing is set aside, /healthz degrades and /metrics says why.

The 2-minute store-disk case runs with HARBORLIGHT_LONG_FAULTS=1; the default suite runs the 15 s one."""

import os
import random
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import grpc
import httpx
import pytest
from google.rpc import error_details_pb2, status_pb2

from tests.support.full_disk import fill, free, small_tmpfs
from tests.support.otlp import traces_request
from tests.support.servers import SubprocessServer

METHOD = "/opentelemetry.proto.collector.trace.v1.TraceService/Export"
SPANS = 40


@dataclass
class Seen:
    """What the exporters saw."""

    acknowledged: list[str] = field(default_factory=list)  # jobs
    refusals: list[str] = field(default_factory=list)  # retryable ones: "HTTP 503", "grpc UNAVAILABLE"
    not_retryable: list[str] = field(default_factory=list)
    unanswered: list[tuple[str, bytes, str]] = field(default_factory=list)  # cut off by a kill: sent again
    lock: threading.Lock = field(default_factory=threading.Lock)


# What gRPC's own UNAVAILABLE says when the connection is gone (a killed server), as no server answer does.
_TRANSPORT = (
    "failed to connect",
    "Connection reset",
    "Socket closed",
    "Broken pipe",
    "Connection refused",
    "connection attempt timed out",
)


def _retry_info(exc: grpc.RpcError) -> bool:
    for key, value in exc.trailing_metadata() or ():
        if key == "grpc-status-details-bin":
            status = status_pb2.Status.FromString(value)
            return any(d.Is(error_details_pb2.RetryInfo.DESCRIPTOR) for d in status.details)
    return False


def deliver(
    server: SubprocessServer,
    job: str,
    body: bytes,
    via: str,
    seen: Seen,
    give_up_after: float = 240,
    until_answered: bool = True,
) -> bool:
    """Sends one export request as an exporter does: again after each retryable refusal, until acknowledged.
    A refusal that is not retryable is recorded (the test fails on it). With until_answered False, a request
    the server never answered (it was killed) is left for the caller to send again; returns whether acked."""
    deadline = time.monotonic() + give_up_after
    while time.monotonic() < deadline:
        try:
            if via == "http":
                answer = httpx.post(
                    f"{server.http_url}/v1/traces",
                    content=body,
                    timeout=30,
                    headers={"content-type": "application/x-protobuf"},
                )
                if answer.status_code == 200:
                    break
                kind = f"HTTP {answer.status_code}"
                if answer.status_code not in (429, 503) or "retry-after" not in answer.headers:
                    with seen.lock:
                        seen.not_retryable.append(f"{kind} {answer.headers.get('retry-after')} {answer.text[:200]}")
                    return False
            else:
                with grpc.insecure_channel(server.grpc_endpoint) as channel:
                    try:
                        channel.unary_unary(METHOD)(body, timeout=30)
                        break
                    except grpc.RpcError as exc:
                        kind = f"grpc {exc.code().name}"
                        if (
                            exc.code() == grpc.StatusCode.UNAVAILABLE
                            and not _retry_info(exc)
                            and any(t in (exc.details() or "") for t in _TRANSPORT)
                        ):
                            raise ConnectionError(exc.details()) from None  # the server is gone, not refusing
                        if exc.code() not in (
                            grpc.StatusCode.UNAVAILABLE,
                            grpc.StatusCode.RESOURCE_EXHAUSTED,
                        ) or not _retry_info(exc):
                            with seen.lock:
                                seen.not_retryable.append(f"{kind} without RetryInfo: {exc.details()}")
                            return False
        except (httpx.TransportError, ConnectionError):
            if not until_answered:
                with seen.lock:
                    seen.unanswered.append((job, body, via))
                return False
            time.sleep(0.2)
            continue
        with seen.lock:
            seen.refusals.append(kind)
        time.sleep(0.2)  # an exporter waits Retry-After; shorter here, to keep the test quick
    else:
        with seen.lock:
            seen.not_retryable.append(f"{job}: still refused after {give_up_after} s")
        return False
    with seen.lock:
        seen.acknowledged.append(job)
    return True


def _body(service: str, job: str, spans: int = SPANS) -> bytes:
    return traces_request(service, spans, job=job).SerializeToString()


def stored_by_job(server: SubprocessServer, service: str) -> dict[str, int]:
    server.caught_up()
    rows = httpx.get(f"{server.http_url}/api/ingest", params={"service": service}, timeout=120).json()["stored"]
    return {r["job"]: r["items"] for r in rows if r["signal"] == "traces"}


def assert_each_stored_once(server: SubprocessServer, service: str, seen: Seen, spans: int = SPANS) -> None:
    stored = stored_by_job(server, service)
    missing = [j for j in seen.acknowledged if stored.get(j, 0) < spans]
    twice = {j: n for j, n in stored.items() if n > spans}
    assert missing == [] and twice == {}, f"acknowledged and not stored: {missing}; stored twice: {twice}"
    report = httpx.get(f"{server.http_url}/api/ingest", timeout=60).json()
    assert report["writer"]["set_aside_requests"] == 0 and report["log"]["rejected_requests"] == 0


def start_exporters(
    server: SubprocessServer, unique: str, seen: Seen, vias: tuple[str, ...], stop: threading.Event
) -> list[threading.Thread]:
    """One exporter thread per protocol in `vias`, each sending new requests until `stop` is set or one of its
    requests is left unanswered (a kill)."""
    counter = iter(range(10**6))

    def send(via: str) -> None:
        while not stop.is_set():
            job = f"{unique}-{next(counter)}"
            if not deliver(server, job, _body(unique, job), via, seen, until_answered=False):
                return

    senders = [threading.Thread(target=send, args=(via,)) for via in vias]
    for t in senders:
        t.start()
    return senders


def metric(server: SubprocessServer, name: str, labels: str = "") -> float | None:
    text = httpx.get(f"{server.http_url}/metrics", timeout=30).text
    for line in text.splitlines():
        if line.startswith(name + (("{" + labels + "}") if labels else " ")):
            return float(line.rsplit(" ", 1)[1])
    return None


def wait_healthy(server: SubprocessServer, timeout: float = 120) -> None:
    deadline = time.monotonic() + timeout
    while (health := httpx.get(f"{server.http_url}/healthz", timeout=30)).status_code != 200:
        assert time.monotonic() < deadline, health.text
        time.sleep(0.5)


class DegradedStart(SubprocessServer):
    """A server that may start on a full disk: it is up once /healthz answers at all (503 included)."""

    def start(self, timeout: float = 120) -> "DegradedStart":
        self.launch()
        deadline = time.monotonic() + timeout
        while True:
            assert self.process.poll() is None, self.written()[-3000:]
            try:
                httpx.get(f"{self.http_url}/healthz", timeout=5)
                return self
            except httpx.TransportError:
                assert time.monotonic() < deadline, "the server did not answer"
                time.sleep(0.1)


def _store_disk_full(tmp_path: Path, unique: str, seconds: float, requests: int) -> None:
    with small_tmpfs(96 * 1024) as disk:
        server = DegradedStart(disk / "data", ("--wal-dir", str(tmp_path / "wal"))).start()
        try:
            seen = Seen()
            deliver(server, f"{unique}-before", _body(unique, f"{unique}-before"), "grpc", seen)
            server.caught_up()
            filler = fill(disk)
            started = time.monotonic()
            for i in range(requests):  # spread over the time the disk stays full, half over each protocol
                job = f"{unique}-{i}"
                deliver(server, job, _body(unique, job), ("http", "grpc")[i % 2], seen)
                time.sleep(max(0.0, started + (i + 1) * seconds / requests - time.monotonic()))
            health = httpx.get(f"{server.http_url}/healthz", timeout=30)
            assert health.status_code == 503, health.text
            assert "store disk is nearly full" in health.json()["reason"]
            assert "commits have failed" in health.json()["reason"]
            assert health.json()["commits"]["fault"] == "NOT_ENOUGH_SPACE"
            assert metric(server, "harborlight_disk_free_bytes", 'disk="store"') < 1 << 20
            assert metric(server, "harborlight_writer_failing") == 1
            assert metric(server, "harborlight_writer_set_aside_requests_total") == 0
            free(filler)  # space is back: no restart
            assert_each_stored_once(server, unique, seen)
            assert seen.not_retryable == []
            assert len(seen.acknowledged) == requests + 1
            wait_healthy(server)
            assert metric(server, "harborlight_writer_failing") == 0
            print(
                f"store disk full {seconds:.0f} s: {requests} requests acknowledged from the log, "
                f"{metric(server, 'harborlight_writer_store_faults_total'):.0f} failed commit attempts waited out, "
                f"every span stored once after space returned, nothing set aside"
            )
        finally:
            server.stop()


def test_a_full_store_disk_for_15_s_is_waited_out_and_every_acknowledged_span_is_stored_once(tmp_path, unique):
    """It once set all 20 requests aside as if the store refused them alone (NOT_ENOUGH_SPACE counted as the
    batch's own failure): 1,000 of 1,250 acknowledged spans never stored."""
    _store_disk_full(tmp_path, unique, 15, 20)


@pytest.mark.skipif(not os.environ.get("HARBORLIGHT_LONG_FAULTS"), reason="2 minutes: HARBORLIGHT_LONG_FAULTS=1")
def test_a_full_store_disk_for_2_minutes_is_waited_out(tmp_path, unique):
    _store_disk_full(tmp_path, unique, 120, 60)


def test_the_log_filling_its_disk_behind_a_full_store_refuses_retryably_and_recovers_without_a_restart(
    tmp_path, unique
):
    """The store's disk is full, so the log holds every request, until the log's own (small) disk is full too:
    the receivers refuse retryably (once answered 500 / UNKNOWN, which exporters drop), /healthz and /metrics
    say which disk; once the store has room the log drains, its segments go, and the refused requests are
    taken again, with no restart."""
    with small_tmpfs(96 * 1024) as data_disk, small_tmpfs(2 * 1024) as log_disk:
        server = DegradedStart(data_disk / "data", ("--wal-dir", str(log_disk / "wal"), "--wal-max-mib", "8")).start()
        try:
            seen = Seen()
            filler = fill(data_disk)
            senders = [
                threading.Thread(
                    target=lambda k=k: [
                        deliver(
                            server,
                            f"{unique}-{k}-{i}",
                            _body(unique, f"{unique}-{k}-{i}", 300),
                            ("http", "grpc")[k % 2],
                            seen,
                        )
                        for i in range(40)
                    ]
                )
                for k in range(2)
            ]  # ~55 KB each: 4.4 MB for a 2 MiB disk (1 MiB segments)
            for t in senders:
                t.start()
            deadline = time.monotonic() + 600  # a bound against hanging, not a timing
            while not seen.refusals:  # the log's disk is full: refusals
                assert time.monotonic() < deadline and any(t.is_alive() for t in senders), (
                    f"the log's disk never filled: {len(seen.acknowledged)} acknowledged, {seen.not_retryable[:3]}"
                )
                time.sleep(0.1)
            # whichever sender met the full log first, each protocol is asked once now: both refuse retryably
            # (one sender may have had all its requests taken before the disk filled)
            for via in ("http", "grpc"):
                job = f"{unique}-probe-{via}"
                deliver(server, job, _body(unique, job, 300), via, seen, give_up_after=1)
            with seen.lock:
                seen.not_retryable = [r for r in seen.not_retryable if "-probe-" not in r or "still refused" not in r]
            health = httpx.get(f"{server.http_url}/healthz", timeout=30).json()
            assert "log disk is nearly full" in health["reason"], health
            assert metric(server, "harborlight_wal_refused_disk_requests_total") > 0
            assert metric(server, "harborlight_disk_free_bytes", 'disk="log"') < 128 << 10
            free(filler)
            for t in senders:
                t.join(300)
            assert seen.not_retryable == []
            assert {r.split()[0] for r in seen.refusals} == {"HTTP", "grpc"}
            assert {f"{unique}-{k}-{i}" for k in range(2) for i in range(40)} <= set(seen.acknowledged)
            assert_each_stored_once(server, unique, seen, 300)
            print(
                f"log disk full behind a full store disk: {len(seen.refusals)} retryable refusals "
                f"({sorted(set(seen.refusals))}), 80 requests stored once, no restart"
            )
        finally:
            server.stop()


def test_a_sigkill_while_the_log_disk_is_full_then_a_restart_on_the_full_disk_loses_nothing(tmp_path, unique):
    """Exporters send while the log's disk is full and the server is killed at a random moment; it starts
    again on the full disk (opening the log needs no new space), the requests the kill left unanswered are sent
    again, space returns: every acknowledged span is stored once."""
    rng = random.Random()
    with small_tmpfs(2 * 1024) as log_disk:
        extra = ("--wal-dir", str(log_disk / "wal"), "--wal-fsync", "always")
        server = DegradedStart(tmp_path / "data", extra).start()
        seen, stop = Seen(), threading.Event()
        try:
            senders = start_exporters(server, unique, seen, ("http", "grpc", "grpc"), stop)
            time.sleep(0.5)
            filler = fill(log_disk)
            time.sleep(0.5 + rng.random() * 3)  # refusals meanwhile
            server.kill()  # SIGKILL; its pipe closed before start() makes the next process
            stop.set()
            for t in senders:
                t.join(60)
            refused_before_kill = len(seen.refusals)
            fill(log_disk)  # whatever the dead process's files gave back
            server.start()  # on the full disk
            while_full = Seen()
            for job, body, via in seen.unanswered:  # sent again while the disk is still full: refused retryably
                deliver(server, job, body, via, while_full, give_up_after=2)
            assert all("still refused" in r for r in while_full.not_retryable), while_full.not_retryable
            seen.acknowledged += while_full.acknowledged
            seen.refusals += while_full.refusals
            free(filler)
            for job, body, via in seen.unanswered:
                if job not in seen.acknowledged:
                    assert deliver(server, job, body, via, seen)
            assert seen.not_retryable == []
            assert refused_before_kill > 0, "the log's disk never refused before the kill"
            assert_each_stored_once(server, unique, seen)
            print(
                f"SIGKILL on a full log disk: {refused_before_kill} retryable refusals before it, "
                f"{len(seen.unanswered)} requests sent again after the restart on the full disk, "
                f"{len(seen.acknowledged)} acknowledged requests stored once"
            )
        finally:
            stop.set()
            if server.process.poll() is None:
                server.stop()


def test_a_sigkill_while_the_store_disk_is_full_then_a_restart_on_the_full_disk_loses_nothing(tmp_path, unique):
    """Exporters send while the store's disk is full (the log holds every request); the server is killed at a
    random moment and starts again on the still-full disk, the requests the kill left unanswered are sent
    again, space returns: every acknowledged span is stored once, nothing set aside."""
    rng = random.Random()
    with small_tmpfs(96 * 1024) as disk:
        server = DegradedStart(disk / "data", ("--wal-dir", str(tmp_path / "wal"), "--wal-fsync", "always")).start()
        seen, stop = Seen(), threading.Event()
        try:
            deliver(server, f"{unique}-before", _body(unique, f"{unique}-before"), "grpc", seen)
            server.caught_up()
            filler = fill(disk)
            senders = start_exporters(server, unique, seen, ("http", "grpc"), stop)
            time.sleep(1 + rng.random() * 4)  # acknowledged into the log, the commits failing meanwhile
            server.kill()  # SIGKILL; its pipe closed before start() makes the next process
            stop.set()
            for t in senders:
                t.join(60)
            acknowledged_before_kill = len(seen.acknowledged)
            fill(disk)  # whatever the dead process's files gave back
            server.start()  # on the full disk: the log's requests wait for room
            for job, body, via in seen.unanswered:
                assert deliver(server, job, body, via, seen)
            health = httpx.get(f"{server.http_url}/healthz", timeout=30)
            assert health.status_code == 503 and "store disk is nearly full" in health.json()["reason"], health.text
            free(filler)
            assert seen.not_retryable == []
            assert acknowledged_before_kill > 1, "nothing was acknowledged while the store's disk was full"
            assert_each_stored_once(server, unique, seen)
            print(
                f"SIGKILL on a full store disk: {acknowledged_before_kill} requests acknowledged before it, "
                f"{len(seen.unanswered)} sent again after the restart on the full disk, all stored once"
            )
        finally:
            stop.set()
            if server.process.poll() is None:
                server.stop()
