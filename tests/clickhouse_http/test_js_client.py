"""The ClickHouse HTTP interface through the official JavaScript client (@clickhouse/client from npm)."""

import json
import shutil
import subprocess
from pathlib import Path

import pytest

JS = Path(__file__).parent / "js"


@pytest.fixture(scope="module")
def js_client() -> Path:
    if not shutil.which("node") or not shutil.which("npm"):
        pytest.skip("node and npm are needed to install and run @clickhouse/client")
    if not (JS / "node_modules" / "@clickhouse" / "client").is_dir():
        done = subprocess.run(
            ["npm", "install", "--no-audit", "--no-fund", "--loglevel=error"],
            cwd=JS,
            capture_output=True,
            text=True,
            timeout=240,
        )
        assert done.returncode == 0, f"npm install failed: {done.stderr}"
    return JS / "check.mjs"


def test_the_javascript_client_reads_its_tenants_rows_and_gets_clickhouse_errors(js_client, ch_port, tenants_data):
    done = subprocess.run(
        [
            "node",
            str(js_client),
            f"http://127.0.0.1:{ch_port}",
            "ch-acme",
            tenants_data["globex"],
            tenants_data["acme"],
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout)
    assert seen["ping"]["success"] is True
    assert seen["rows"]["ok"] == [{"ServiceName": tenants_data["acme"], "spans": 3}]
    assert seen["json"]["ok"]["data"] == [{"one": 1}]
    assert seen["tsv"]["ok"] == "one\nUInt8\n1\n"
    assert seen["insert"]["error"]["code"] == "164" and seen["insert"]["error"]["type"] == "READONLY"
    assert seen["ddl"]["error"]["code"] == "164"
    assert seen["syntax"]["error"]["code"] == "62" and seen["syntax"]["error"]["type"] == "SYNTAX_ERROR"
    assert seen["badToken"]["error"]["code"] == "516"
