"""GET /metrics: ingest accounting and writer health in the Prometheus text format.

Values are read from the live counters at scrape time (one source of truth, no second set of
counters to keep in step). With tenants on, only an operator token (--auth-token, no tenant) reads it.
"""

from fastapi import APIRouter, Response
from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, generate_latest
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily

from harborlight.api.deps import Counters, Services, Svc, Tenant, WriterDep
from harborlight.api.errors import Forbidden
from harborlight.api.routes.health import commit_state, disks

_ITEM_COUNTERS = (
    ("received", "items received (valid or not)"),
    ("accepted", "items accepted and committed"),
    ("rejected", "items rejected one by one (partial_success)"),
    ("truncated", "items stored with values cut or attributes dropped by the size limits"),
    ("duplicate_requests", "requests acknowledged as retries of already-stored ones"),
)


class _StateCollector:
    def __init__(self, state: Services) -> None:
        self._state = state

    def collect(self):
        counters = self._state.counters
        labels = ["tenant", "signal", "service", "job"]
        for name, help_text in _ITEM_COUNTERS:
            family = CounterMetricFamily(f"harborlight_ingest_{name}", help_text, labels=labels)
            for source, value in getattr(counters, name).items():
                family.add_metric(list(source), value)
            yield family
        refused = CounterMetricFamily(
            "harborlight_ingest_refused_requests",
            "requests refused whole (retryable or not)",
            labels=["tenant", "signal", "error"],
        )
        for key, value in counters.refused_requests.items():
            refused.add_metric(list(key), value)
        yield refused
        stats = self._state.writer.stats
        yield CounterMetricFamily(
            "harborlight_writer_commits", "commits of the write-ahead log to the store", value=stats.batches
        )
        yield CounterMetricFamily(
            "harborlight_writer_commit_seconds", "time spent committing", value=stats.commit_seconds
        )
        yield CounterMetricFamily(
            "harborlight_writer_retried_commits", "commit attempts the store failed", value=stats.retried_commits
        )
        yield CounterMetricFamily(
            "harborlight_writer_set_aside_requests",
            "acknowledged requests the store refused alone, kept in the log's rejected/",
            value=stats.set_aside_requests,
        )
        yield CounterMetricFamily(
            "harborlight_writer_store_faults",
            "failed commit attempts that were the store's as a whole (no space, memory, too "
            "many parts, unreachable, ...): tried again, never set aside",
            value=stats.store_faults,
        )
        yield CounterMetricFamily(
            "harborlight_writer_outages",
            "times the store stopped taking the log's batches as a whole",
            value=stats.outages,
        )
        commits = commit_state(stats)
        yield GaugeMetricFamily(
            "harborlight_writer_failing",
            "1 while commits fail (the log holds the requests)",
            value=int(commits["failing"]),
        )
        yield GaugeMetricFamily(
            "harborlight_writer_failing_seconds", "how long commits have been failing", value=commits["failing_seconds"]
        )
        yield GaugeMetricFamily(
            "harborlight_writer_consecutive_failures",
            "failed commit attempts in a row",
            value=commits["consecutive_failures"],
        )
        fault = GaugeMetricFamily(
            "harborlight_writer_fault", "the store-wide fault commits are waiting out", labels=["fault"]
        )
        if commits["fault"]:
            fault.add_metric([commits["fault"]], 1)
        yield fault
        free = GaugeMetricFamily(
            "harborlight_disk_free_bytes",
            "free bytes of the file systems of the log, the store and the spool",
            labels=["disk"],
        )
        total = GaugeMetricFamily("harborlight_disk_total_bytes", "size of those file systems", labels=["disk"])
        nearly = GaugeMetricFamily(
            "harborlight_disk_nearly_full", "1 when /healthz counts the disk as nearly full", labels=["disk"]
        )
        for disk in disks(self._state):
            free.add_metric([disk.name], disk.free_bytes)
            total.add_metric([disk.name], disk.total_bytes)
            nearly.add_metric([disk.name], int(disk.nearly_full))
        yield free
        yield total
        yield nearly
        wal = self._state.writer.log_report()
        yield CounterMetricFamily(
            "harborlight_wal_refused_disk_requests",
            "requests refused because the log's disk did not take them (full or failing)",
            value=wal.refused_disk,
        )
        yield GaugeMetricFamily(
            "harborlight_wal_rejected_requests",
            "requests set aside in the log's rejected/ (harborlight wal replay-rejected)",
            value=wal.rejected_requests,
        )
        yield GaugeMetricFamily("harborlight_wal_bytes", "bytes acknowledged and not yet stored", value=wal.bytes)
        yield GaugeMetricFamily(
            "harborlight_wal_requests", "requests acknowledged and not yet stored", value=wal.requests
        )
        yield GaugeMetricFamily(
            "harborlight_wal_oldest_age_seconds",
            "commit lag: how long the oldest request not yet stored has waited",
            value=wal.oldest_age_seconds or 0.0,
        )
        yield GaugeMetricFamily(
            "harborlight_wal_max_bytes", "the log's size limit (--wal-max-mib)", value=wal.max_bytes
        )
        yield CounterMetricFamily(
            "harborlight_wal_refused_requests", "requests refused because the log was full", value=wal.refused_full
        )
        yield CounterMetricFamily(
            "harborlight_wal_damage", "damaged stretches of the log cut or skipped", value=len(wal.damage)
        )
        memory = self._state.memory
        if memory is not None:
            yield GaugeMetricFamily(
                "harborlight_memory_peak_bytes", "peak resident memory seen by the guard", value=memory.peak_bytes
            )
            yield GaugeMetricFamily(
                "harborlight_memory_limit_bytes", "configured memory limit", value=memory.limit_bytes
            )


def metrics_router() -> APIRouter:
    router = APIRouter(tags=["health"])

    @router.get(
        "/metrics",
        summary="Prometheus metrics: ingest accounting and writer health",
        response_class=Response,
        responses={200: {"content": {CONTENT_TYPE_LATEST: {}}, "description": "the Prometheus text format"}},
    )
    def metrics(services: Svc, tenant: Tenant, _writer: WriterDep, _counters: Counters) -> Response:
        if tenant:
            raise Forbidden("metrics cover every tenant: read them with the operator token (--auth-token)")
        registry = CollectorRegistry(auto_describe=False)
        registry.register(_StateCollector(services))
        return Response(generate_latest(registry), media_type=CONTENT_TYPE_LATEST)

    return router
