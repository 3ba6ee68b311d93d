"""More load than the server can absorb: refusals are retryable, nothing acknowledged is lost, and
memory stays under the limit."""

import asyncio

from tests.support.load import flood, peak_rss_bytes, stored_by_job
from tests.support.servers import SubprocessServer

LIMIT_MIB = 1024


def test_concurrent_exporters_beyond_capacity_lose_nothing_and_stay_under_the_memory_limit(tmp_path):
    server = SubprocessServer(
        tmp_path / "store",
        (
            "--memory-limit-mib",
            str(LIMIT_MIB),
            "--wal-max-mib",
            "2",
            "--max-batch-items",
            "10000",
        ),
    ).start()
    try:
        # 64 requests of 500 spans (~90 KB each) in flight: more than a 2 MiB log holds.
        delivery = asyncio.run(flood(server.grpc_endpoint, "overload", clients=8, in_flight=8, requests=240, spans=500))
        peak = peak_rss_bytes(server.process.pid)
        stored = stored_by_job(server.http_url, "overload")
    finally:
        server.stop()
    assert delivery.other_errors == []
    assert sum(delivery.refusals.values()) > 0, "the server was never saturated: the test proves nothing"
    assert delivery.acknowledged_spans == 240 * 500
    assert stored == {job: 500 for job in delivery.acknowledged_jobs}  # every acknowledged span, once
    assert peak < LIMIT_MIB << 20, f"peak RSS {peak >> 20} MiB"
    print(
        f"overload: {delivery.acknowledged_spans} spans acknowledged, refusals {delivery.refusals}, "
        f"peak RSS {peak >> 20} MiB"
    )
