"""Does any setting a tenant may send let its expression run on another tenant's rows? Every setting of the engine,
turned away from its default one at a time, on two tenants' rows merged as the store keeps them (the tenant leading
each table's partition key), with the SQL port's tenant filter: a PREWHERE that raises on the other tenant's value,
plain and under FINAL.

    python bench/tenant_isolation_settings.py [--shared-parts] [--no-pins]

--shared-parts: the partition keys from before (no tenant), where every statement tells the value.
--no-pins: without the settings the port pins for a tenant (harborlight/sqlport/clickhouse_guard.py TENANT_PINS),
to see which settings need pinning. Prints each setting that told the value and the counts.
"""

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from chdb import session  # noqa: E402

from harborlight.sqlport.clickhouse_errors import Refused  # noqa: E402
from harborlight.sqlport.clickhouse_guard import TENANT_PINS, check_setting  # noqa: E402
from harborlight.sqlport.clickhouse_http import QueryLimits  # noqa: E402

RAW = "ResourceAttributes['harborlight.tenant']"
TABLES = {
    "spans": (
        "Timestamp DateTime64(9), TraceId String, ResourceAttributes Map(LowCardinality(String), String), "
        "secret String",
        "MergeTree",
        "toDate(Timestamp)",
        "(Timestamp)",
        RAW,
    ),
    "rows": (
        "Tenant LowCardinality(String), trial String, Version UInt64, secret String",
        "ReplacingMergeTree(Version)",
        None,
        "(trial)",
        "Tenant",
    ),
}
ORACLES = [
    "SELECT count() FROM spans PREWHERE throwIf(secret = 'guessme', 'HIT') = 0",
    "SELECT count() FROM rows FINAL PREWHERE throwIf(secret = 'guessme', 'HIT') = 0",
]


def build(s, shared: bool) -> str:
    for name, (columns, engine, partition, order, tenant) in TABLES.items():
        key = partition if shared else f"({tenant}, {partition})" if partition else tenant
        s.query(
            f"CREATE TABLE {name} ({columns}) ENGINE = {engine} {f'PARTITION BY {key} ' if key else ''}ORDER BY {order}"
        )
        for t, secret in (("acme", "mine"), ("globex", "guessme")):
            for _ in range(2):
                row = (
                    f"now(), 'x', {{'harborlight.tenant': '{t}'}}, '{secret}'"
                    if name == "spans"
                    else f"'{t}', 'x', 1, '{secret}'"
                )
                s.query(f"INSERT INTO {name} VALUES ({row})")
        s.query(f"OPTIMIZE TABLE {name} FINAL")
    spans = f"'default.spans': '{RAW.replace(chr(39), chr(92) + chr(39))} = \\'acme\\''"
    return "{" + spans + ", 'default.rows': 'Tenant = \\'acme\\''}"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--shared-parts", action="store_true")
    parser.add_argument("--no-pins", action="store_true")
    args = parser.parse_args()
    s = session.Session(tempfile.mkdtemp(prefix="tenant-settings-"))
    filters = build(s, args.shared_parts)
    pins = "" if args.no_pins else "".join(f", {k} = {v}" for k, v in TENANT_PINS.items())
    bounds = QueryLimits().bounds(tenant=True)
    rows = (
        s.query(
            "SELECT name, type, value FROM system.settings WHERE type IN ('Bool', 'UInt64', 'Int64', "
            "'Float', 'Double') ORDER BY name",
            "TSV",
        )
        .bytes()
        .decode()
        .splitlines()
    )
    tried = refused = told = 0
    started = time.monotonic()
    for name, kind, value in [("", "", "")] + [r.split("\t") for r in rows]:
        alternatives = (
            [None]
            if not name
            else ["0" if value in ("1", "true") else "1"]
            if kind == "Bool" or value in ("0", "1")
            else ["0", "1"]
        )
        for alternative in alternatives:
            if name and not args.no_pins:
                try:
                    check_setting(name, alternative, bounds)
                except Refused:
                    refused += 1
                    continue
            extra = f", {name} = {alternative}" if name else ""
            for oracle in ORACLES:
                tried += 1
                try:
                    s.query(
                        f"{oracle} SETTINGS max_execution_time = 5, additional_table_filters = {filters}"
                        f"{extra}{pins if name not in TENANT_PINS else ''}",
                        "TSV",
                    )
                except Exception as exc:  # noqa: BLE001 - an error of the setting itself tells nothing
                    if "HIT" in str(exc):
                        told += 1
                        print(f"tells: {name or '(defaults)'} = {alternative}: {oracle}", flush=True)
    print(
        f"{len(rows)} settings, {tried} statements, {refused} settings refused by the port, {told} told the "
        f"other tenant's value, {time.monotonic() - started:.0f} s"
    )


if __name__ == "__main__":
    main()
