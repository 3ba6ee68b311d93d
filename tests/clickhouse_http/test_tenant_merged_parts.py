"""Once the engine has merged parts, a tenant's own expressions still see only its own rows: one tenant (acme)
tries, over the SQL port, to tell another's (globex's) values by whether its statement fails, on every table a
tenant may read, after the operator forced every merge (OPTIMIZE TABLE ... FINAL). Each statement is asked with
globex's real value and with a wrong guess: the two answers must be the same.

Before the tenant led each table's partition key, the merge put both tenants' rows in one part, and a tenant's
PREWHERE (or a WHERE the optimizer moved there) ran on the other tenant's rows before the tenant filter
removed them: `throwIf(startsWith(secret, guess))` answered Code: 395 for a right guess and 0 for a wrong one.
Now no part holds two tenants' rows, and the tenant filter prunes the other tenant's parts before any row is
read (EXPLAIN indexes = 1 shows it), so nothing the caller writes is evaluated on them."""

import time
import uuid

import httpx
import pytest
from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import ExportLogsServiceRequest
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

from tests.storage.test_metrics_types import every_type_request
from tests.support.otlp import attrs

T0 = 1_700_000_000_000_000_000
RAW_TENANT = "ResourceAttributes['harborlight.tenant']"

# Every table a tenant may read, the column that holds a tenant's value in it, and how the operator tells a
# row's tenant.
TABLES = {
    "otel_traces": ("SpanAttributes['secret']", RAW_TENANT),
    "otel_logs": ("LogAttributes['secret']", RAW_TENANT),
    "otel_metrics_gauge": ("ServiceName", RAW_TENANT),
    "otel_metrics_sum": ("ServiceName", RAW_TENANT),
    "otel_metrics_histogram": ("ServiceName", RAW_TENANT),
    "otel_metrics_exponential_histogram": ("ServiceName", RAW_TENANT),
    "otel_metrics_summary": ("ServiceName", RAW_TENANT),
    "otel_traces_trace_id_ts": ("TraceId", "Tenant"),
    "agent_events": ("ServiceName", "Tenant"),
    "trial_arrivals": ("TrialKey", "Tenant"),
    "trial_summarized": ("TrialKey", "Tenant"),
    "trial_rows": ("job", "Tenant"),
    "job_rows": ("job", "Tenant"),
}
FINAL_TABLES = ("trial_rows", "job_rows", "trial_summarized", "trial_arrivals", "otel_traces_trace_id_ts")


def _traces(value: str, trace_id: bytes) -> ExportTraceServiceRequest:
    """A harness's trial whose service, job, trial and every span's `secret` attribute are `value`."""
    request = ExportTraceServiceRequest()
    rs = request.resource_spans.add()
    rs.resource.attributes.extend(
        attrs(**{"service.name": value, "harbor.job.name": value, "harbor.trial.name": value})
    )
    spans = rs.scope_spans.add().spans
    root = uuid.uuid4().bytes[:8]
    for i, name in enumerate(("harbor.trial", "chat gpt-5", "harbor.verifier")):
        span = spans.add(
            trace_id=trace_id,
            span_id=root if i == 0 else uuid.uuid4().bytes[:8],
            parent_span_id=b"" if i == 0 else root,
            name=name,
            kind=1,
            start_time_unix_nano=T0 + i * 1000,
            end_time_unix_nano=T0 + 10_000 - i,
        )
        span.attributes.extend(attrs(secret=value, **{"gen_ai.operation.name": "chat"} if i == 1 else {}))
    return request


def _logs(value: str) -> ExportLogsServiceRequest:
    request = ExportLogsServiceRequest()
    rl = request.resource_logs.add()
    rl.resource.attributes.extend(attrs(**{"service.name": value}))
    record = rl.scope_logs.add().log_records.add(time_unix_nano=T0, severity_number=9, event_name="x")
    record.body.string_value = value
    record.attributes.extend(attrs(secret=value))
    return request


@pytest.fixture(scope="module")
def merged(guarded):
    """acme's and globex's rows in every table, each tenant's value of its own, after every merge was forced."""
    values = {tenant: f"{tenant[:2]}{uuid.uuid4().hex[:10]}" for tenant in ("acme", "globex")}
    trace_ids = {tenant: uuid.uuid4().bytes for tenant in values}
    for token, tenant in (("ch-acme", "acme"), ("ch-globex", "globex")):
        headers = {"content-type": "application/x-protobuf", "authorization": f"Bearer {token}"}
        for path, request in (
            ("traces", _traces(values[tenant], trace_ids[tenant])),
            ("logs", _logs(values[tenant])),
            ("metrics", every_type_request(values[tenant])),
        ):
            for _ in range(2):  # two parts a tenant, before the merge
                posted = httpx.post(
                    f"{guarded.http_url}/v1/{path}", content=request.SerializeToString(), headers=headers, timeout=60
                )
                assert posted.status_code == 200, posted.text
    client = guarded.store.client
    for _ in range(600):  # the keeper derives the trial and job rows after the commits
        if client.command(
            "SELECT count() FROM job_rows FINAL WHERE job = {j:String}", parameters={"j": values["globex"]}
        ):
            break
        time.sleep(0.2)
    for table in TABLES:
        client.command(f"OPTIMIZE TABLE {table} FINAL")
    return values, {t: trace_ids[t].hex() for t in trace_ids}


def _ask(port: int, sql: str, token: str = "ch-acme") -> httpx.Response:
    return httpx.post(f"http://127.0.0.1:{port}/", content=sql.encode(), auth=("default", token), timeout=120)


def test_after_the_merge_no_part_holds_two_tenants_rows(merged, guarded):
    """What the merge did to the store: every table holds both tenants' rows, never in one part."""
    values, trace_ids = merged
    client = guarded.store.client
    for table, (column, tenant) in TABLES.items():
        wanted = trace_ids["globex"] if column == "TraceId" else values["globex"]
        assert client.command(f"SELECT count() FROM {table} WHERE {column} = {{v:String}}", parameters={"v": wanted}), (
            f"{table} has no row of globex's"
        )
        shared = client.query(
            f"SELECT _part, groupUniqArray({tenant}) AS tenants FROM {table} "
            f"WHERE {tenant} IN ('acme', 'globex') GROUP BY _part HAVING length(tenants) > 1"
        ).result_rows
        assert shared == [], f"{table}: parts holding both tenants' rows: {shared}"


def test_the_tenant_filter_prunes_the_other_tenants_parts_before_any_read(merged, guarded):
    """The operator's EXPLAIN of the statement as the port runs it for acme: the partition key's condition is the
    tenant's, and the parts read are only acme's."""
    client = guarded.store.client
    plan = "\n".join(
        row[0]
        for row in client.query(
            "EXPLAIN indexes = 1 SELECT count() FROM otel_traces PREWHERE throwIf(SpanAttributes['secret'] = 'x')",
            settings={
                "additional_table_filters": "{'default.otel_traces': '"
                + RAW_TENANT.replace("'", "\\'")
                + " = \\'acme\\''}"
            },
        ).result_rows
    )
    partition = plan.split("Partition", 1)[1]
    assert "in ['acme', 'acme']" in partition.split("Parts:", 1)[0], plan
    read, total = (int(n) for n in partition.split("Parts: ", 1)[1].split()[0].split("/"))
    acme_parts = client.command(
        "SELECT count() FROM system.parts WHERE database = 'default' AND table = "
        "'otel_traces' AND active AND partition LIKE '(\\'acme\\',%'"
    )
    assert read == acme_parts < total


def _literal(value: str) -> str:
    return "'" + value.replace("\\", "\\\\").replace("'", "\\'") + "'"


# Each statement as acme writes it, {t} the table, {s} the column holding a tenant's value, {g} the guess.
ORACLES = {
    "prewhere": "SELECT count() FROM {t} PREWHERE throwIf({s} = {g}, 'HIT') = 0",
    "where": "SELECT count() FROM {t} WHERE throwIf({s} = {g}, 'HIT') = 0",
    "where moved to prewhere": "SELECT count() FROM {t} WHERE throwIf({s} = {g}, 'HIT') = 0 SETTINGS "
    "optimize_move_to_prewhere = 1, move_all_conditions_to_prewhere = 1",
    "prewhere, optimizations off": "SELECT count() FROM {t} PREWHERE throwIf({s} = {g}, 'HIT') = 0 SETTINGS "
    "optimize_move_to_prewhere = 0, query_plan_enable_optimizations = 0, "
    "short_circuit_function_evaluation = 'disable'",
    "having": "SELECT count() FROM (SELECT {s} AS k, count() FROM {t} GROUP BY k HAVING throwIf(k = {g}, 'HIT') = 0)",
    "arrayJoin": "SELECT count() FROM {t} WHERE arrayJoin([intDiv(1, toUInt8({s} != {g}))]) = 1",
    "array join": "SELECT count() FROM {t} ARRAY JOIN [intDiv(1, toUInt8({s} != {g}))] AS x",
    "division by zero": "SELECT count() FROM {t} WHERE intDiv(1, toUInt8({s} != {g})) = 1",
    "assumeNotNull": "SELECT count() FROM {t} WHERE throwIf(assumeNotNull(nullIf({s}, {g})) = '' AND {s} != '', "
    "'HIT') = 0",
    # the engine refuses a block that would sleep more than 3 s: two matching rows at 2 s each
    "sleepEachRow": "SELECT count() FROM {t} WHERE {s} = {g} AND sleepEachRow(2) = 0",
    "join": "SELECT count() FROM {t} AS a, {t} AS b WHERE throwIf(b.{s} = {g}, 'HIT') = 0",
    "subquery": "SELECT count() FROM (SELECT * FROM {t}) WHERE throwIf({s} = {g}, 'HIT') = 0",
    "scalar subquery": "SELECT (SELECT count() FROM {t} PREWHERE throwIf({s} = {g}, 'HIT') = 0)",
    "view()": "SELECT count() FROM view(SELECT * FROM {t} PREWHERE throwIf({s} = {g}, 'HIT') = 0)",
    "IN subquery": "SELECT count() FROM system.one WHERE 1 IN (SELECT 1 FROM {t} WHERE throwIf({s} = {g}, 'HIT') = 0)",
    "additional_table_filters": "SELECT count() FROM {t} SETTINGS additional_table_filters = {{'{t}': {f}}}",
    "no partition pruning": "SELECT count() FROM {t} PREWHERE throwIf({s} = {g}, 'HIT') = 0 SETTINGS "
    "use_partition_pruning = 0, use_partition_key = 0",
}
FINAL_ORACLES = {
    "final where": "SELECT count() FROM {t} FINAL WHERE throwIf({s} = {g}, 'HIT') = 0",
    "final prewhere, pruning after final": "SELECT count() FROM {t} FINAL PREWHERE throwIf({s} = {g}, 'HIT') = 0 "
    "SETTINGS defer_partition_pruning_after_final = 1",
}
CASES = [(t, o) for t in TABLES for o in ORACLES] + [(t, o) for t in FINAL_TABLES for o in FINAL_ORACLES]


def _statement(table: str, oracle: str, guess: str) -> str:
    column = TABLES[table][0]
    filter_text = f"throwIf({column} = {_literal(guess)}, 'HIT') = 0"
    return {**ORACLES, **FINAL_ORACLES}[oracle].format(t=table, s=column, g=_literal(guess), f=_literal(filter_text))


def _answer(reply: httpx.Response, guess: str) -> tuple:
    return reply.status_code, reply.headers.get("x-clickhouse-exception-code"), reply.text.replace(guess, "GUESS")


@pytest.mark.parametrize("table,oracle", CASES)
def test_a_tenants_expression_never_tells_another_tenants_values(merged, ch_port, table, oracle):
    values, trace_ids = merged
    right = trace_ids["globex"] if TABLES[table][0] == "TraceId" else values["globex"]
    wrong = right[:-4] + ("0000" if not right.endswith("0000") else "1111")
    answers = [_answer(_ask(ch_port, _statement(table, oracle, guess)), guess) for guess in (right, wrong)]
    assert answers[0] == answers[1], f"{oracle} on {table} tells globex's value: {answers}"
    assert "HIT" not in answers[0][2] and "Division by zero" not in answers[0][2], answers[0]
    assert answers[0][0] == 200 or answers[0][1] in ("452", "497"), answers[0]  # run, or refused for all
