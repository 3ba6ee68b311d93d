"""Two `harborlight serve` receivers over one ClickHouse server, as behind a load balancer: an exporter's
requests alternate between them, a retry after a lost acknowledgement reaches the other receiver, one
receiver is SIGKILLed with acknowledged requests in its log that the store does not have yet, and the one
request it left unanswered is retried on the other. Once it restarts and its log drains, every acknowledged
span is stored exactly once and every trial's row is right: the per-request deduplication lives in the store
(the stored digests in harborlight_ingested_requests, the claims in harborlight_request_claims), not in either
receiver's memory.

The server is the chDB-backed stand-in for ClickHouse's HTTP interface (tests/support/clickhouse_standin.py),
with the plain schema, or as a cluster of one shard with the cluster form (the receivers run with --cluster):
the test pauses it (SIGSTOP) so that the kill finds requests acknowledged and not yet stored, every time."""

import signal
from collections import Counter
from contextlib import contextmanager

import grpc
import httpx
import pytest

from harborlight.store.schema_ddl import Cluster
from tests.agent.otlp_build import Traces
from tests.storage.test_server_mode import reader
from tests.support.load import METHOD
from tests.support.servers import SubprocessServer
from tests.support.standin_process import Standin, one_shard_cluster

TRIALS, REQUESTS_PER_TRIAL, CALLS_PER_REQUEST, INPUT_TOKENS = 4, 6, 5, 100
CALLS = REQUESTS_PER_TRIAL * CALLS_PER_REQUEST


def _trial_requests(job: str, trial: str) -> list[bytes]:
    """A trial's spans in REQUESTS_PER_TRIAL requests: its root and model calls first, then more calls under it."""
    resource = {
        "service.name": "failover",
        "harbor.job.name": job,
        "harbor.trial.name": trial,
        "harbor.task.name": "fix-bug",
    }
    first = Traces(resource)
    root = first.span("harbor.trial", start_ms=0, dur_ms=60_000)
    requests = []
    for r in range(REQUESTS_PER_TRIAL):
        calls = first if r == 0 else Traces(resource, trace_id=first.trace_id)
        for c in range(CALLS_PER_REQUEST):
            calls.span(
                "chat gpt-5",
                {
                    "gen_ai.operation.name": "chat",
                    "gen_ai.request.model": "gpt-5",
                    "gen_ai.usage.input_tokens": INPUT_TOKENS,
                },
                parent=root,
                start_ms=100 + r * 1000 + c * 10,
                dur_ms=5,
            )
        requests.append(calls)
    return [t.request.SerializeToString() for t in requests]


def _export(receiver: SubprocessServer, body: bytes) -> bool:
    """True once the receiver acknowledged the request; False when it is not there to answer."""
    with grpc.insecure_channel(receiver.grpc_endpoint) as channel:
        try:
            channel.unary_unary(METHOD)(body, timeout=10)
            return True
        except grpc.RpcError as exc:
            if exc.code() != grpc.StatusCode.UNAVAILABLE:
                raise
            return False


CLUSTER = Cluster("hl")


@pytest.fixture(params=["server", "cluster"])
def store(request, tmp_path):
    """One server with the plain schema, or a cluster's server with the cluster form (Distributed tables)."""
    standin = (
        Standin(tmp_path / "engine").start() if request.param == "server" else one_shard_cluster(tmp_path, CLUSTER)
    )
    yield standin
    standin.stop()


@pytest.fixture
def receivers(request, store, tmp_path):
    on_cluster = ("--cluster", CLUSTER.name) if request.node.callspec.params["store"] == "cluster" else ()
    pair = [
        SubprocessServer(tmp_path / name, ("--clickhouse-url", store.url, *on_cluster)).start() for name in ("a", "b")
    ]
    yield pair
    for receiver in pair:
        if receiver.process.poll() is None:
            receiver.stop()


@contextmanager
def paused(store: Standin):
    """The server stops answering (its process stopped): commits wait, acknowledgements from the logs do not."""
    store.process.send_signal(signal.SIGSTOP)
    try:
        yield
    finally:
        store.process.send_signal(signal.SIGCONT)


def _stored_spans(store: Standin, job: str) -> Counter:
    return Counter(
        dict(
            reader(store.url)
            .query(
                "SELECT ResourceAttributes['harbor.trial.name'], count() FROM otel_traces "
                "WHERE ResourceAttributes['harbor.job.name'] = {j:String} GROUP BY 1",
                parameters={"j": job},
            )
            .result_rows
        )
    )


def test_retries_across_two_receivers_one_killed_store_every_acknowledged_span_once(store, receivers, unique):
    a, b = receivers
    job = f"failover-{unique}"
    trials = {f"{unique}-t{k}": _trial_requests(job, f"{unique}-t{k}") for k in range(TRIALS)}
    sends = [bodies[r] for r in range(REQUESTS_PER_TRIAL) for bodies in trials.values()]
    half = len(sends) // 2
    retried_elsewhere = 0
    for i, body in enumerate(sends[:half]):
        first, other = receivers[i % 2], receivers[1 - i % 2]
        assert _export(first, body)
        if i % 3 == 0:  # its acknowledgement was lost: the exporter's retry, after its timeout, reaches the other
            first.caught_up()
            assert _export(other, body)
            retried_elsewhere += 1
    a.caught_up()
    b.caught_up()
    with paused(store):
        held = sends[half : half + 3]
        for body in held:  # acknowledged from a's log, not stored: only a's log has them
            assert _export(a, body)
        a.kill()
        # The request a's death left unanswered: the exporter sends it again, the load balancer gives it to b.
        assert not _export(a, held[-1]) and _export(b, held[-1])
        retried_elsewhere += 1
    for body in sends[half + 3 :]:
        assert _export(b, body)
    a.start()  # its log drains into the store before it serves
    for receiver in receivers:
        receiver.caught_up()
    assert _stored_spans(store, job) == {trial: 1 + CALLS for trial in trials}
    for trial in trials:
        row = httpx.get(f"{b.http_url}/api/trials/{trial}", timeout=60).json()
        assert (row["n_steps"]["value"], row["n_input_tokens"]["value"]) == (CALLS, CALLS * INPUT_TOKENS)
    print(
        f"failover: {len(sends)} requests over two receivers, {retried_elsewhere} sent again to the other one, "
        f"one receiver killed with {len(held)} acknowledged requests unstored, restarted: "
        f"{1 + CALLS} spans per trial stored once"
    )


def test_the_same_request_committed_by_two_receivers_at_once_is_stored_once(store, receivers, unique):
    """Both receivers' logs take the request before either can commit it (a lost acknowledgement retried on the
    other receiver while the first one's commit of it runs): the first claim decides which stores it."""
    job = f"at-once-{unique}"
    [body] = _trial_requests(job, f"{unique}-t")[:1]
    with paused(store):  # both logs take it before either receiver can commit it
        for receiver in receivers:
            assert _export(receiver, body)
    for receiver in receivers:
        receiver.caught_up()
    assert _stored_spans(store, job) == {f"{unique}-t": 1 + CALLS_PER_REQUEST}
