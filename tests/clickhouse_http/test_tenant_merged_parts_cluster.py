"""The same on a cluster: harborlight serving the SQL port over the cluster form (Distributed fronts over each
shard's `<name>_local` tables, the tenant leading their partition keys), on the one-shard stand-in. After the
operator forced every local table's merge, acme's statements, asked with globex's real value and a wrong guess,
answer the same."""

import uuid

import clickhouse_connect
import httpx
import pytest

from harborlight.settings import Settings
from harborlight.store.schema_ddl import TENANT_KEYS, Cluster, local_name
from tests.clickhouse_http.conftest import TOKENS
from tests.clickhouse_http.test_tenant_merged_parts import (
    ORACLES,
    TABLES,
    _answer,
    _ask,
    _logs,
    _statement,
    _traces,
)
from tests.storage.test_metrics_types import every_type_request
from tests.support.servers import InProcessServer
from tests.support.standin_process import one_shard_cluster

CLUSTER = Cluster("hl")
# The oracles' cases that reach each kind of table once, and every table by its PREWHERE and WHERE.
CASES = [(t, o) for t in TABLES for o in ("prewhere", "where")] + [
    ("otel_traces", o) for o in ORACLES if o not in ("prewhere", "where")
]


@pytest.fixture(scope="module")
def cluster_merged(tmp_path_factory):
    standin = one_shard_cluster(tmp_path_factory.mktemp("tenant-cluster"), CLUSTER)
    tokens_file = tmp_path_factory.mktemp("tenant-cluster-auth") / "tokens"
    tokens_file.write_text("".join(f"{t} {n}\n" for t, n in TOKENS.items()))
    srv = InProcessServer(
        Settings(clickhouse_url=standin.url, cluster=CLUSTER.name, tokens_file=tokens_file, clickhouse_http_port=0)
    ).start()
    values = {tenant: f"{tenant[:2]}{uuid.uuid4().hex[:10]}" for tenant in ("acme", "globex")}
    trace_ids = {tenant: uuid.uuid4().bytes for tenant in values}
    try:
        for token, tenant in TOKENS.items():
            headers = {"content-type": "application/x-protobuf", "authorization": f"Bearer {token}"}
            for path, request in (
                ("traces", _traces(values[tenant], trace_ids[tenant])),
                ("logs", _logs(values[tenant])),
                ("metrics", every_type_request(values[tenant])),
            ):
                for _ in range(2):
                    posted = httpx.post(
                        f"{srv.http_url}/v1/{path}", content=request.SerializeToString(), headers=headers, timeout=60
                    )
                    assert posted.status_code == 200, posted.text
        srv.caught_up()
        operator = clickhouse_connect.get_client(dsn=standin.url, compress=False)
        for table in TENANT_KEYS:
            operator.command(f"OPTIMIZE TABLE {local_name(table)} FINAL")
        yield srv, operator, values, {t: trace_ids[t].hex() for t in trace_ids}
    finally:
        srv.stop()
        standin.stop()


def test_on_the_cluster_no_local_part_holds_two_tenants_rows(cluster_merged):
    _, operator, values, _ = cluster_merged
    for table in ("otel_traces", "otel_logs", "otel_metrics_sum", "agent_events"):
        tenant = TENANT_KEYS[table]
        assert operator.command(f"SELECT count() FROM {local_name(table)} WHERE {tenant} = 'globex'"), table
        shared = operator.query(
            f"SELECT _part FROM {local_name(table)} GROUP BY _part HAVING uniqExact({tenant}) > 1"
        ).result_rows
        assert shared == [], table


@pytest.mark.parametrize("table,oracle", CASES)
def test_on_the_cluster_a_tenants_expression_never_tells_another_tenants_values(cluster_merged, table, oracle):
    srv, _, values, trace_ids = cluster_merged
    port = srv.run.clickhouse_http_port
    right = trace_ids["globex"] if TABLES[table][0] == "TraceId" else values["globex"]
    wrong = right[:-4] + ("0000" if not right.endswith("0000") else "1111")
    answers = [_answer(_ask(port, _statement(table, oracle, guess)), guess) for guess in (right, wrong)]
    assert answers[0] == answers[1], f"{oracle} on {table} tells globex's value: {answers}"
    assert "HIT" not in answers[0][2] and "Division by zero" not in answers[0][2], answers[0]
    assert answers[0][0] == 200 or answers[0][1] in ("452", "497"), answers[0]
