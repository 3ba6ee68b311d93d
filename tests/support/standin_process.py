"""The ClickHouse stand-in (tests/support/clickhouse_standin.py) as a subprocess that can be stopped and started
again on the same port and data directory, optionally with a server configuration for its engine: a cluster of
one shard whose replica is the engine itself, holding the schema's cluster form."""

import subprocess
import sys
from pathlib import Path

import clickhouse_connect

from harborlight.store.schema_cluster import apply_cluster_schema
from harborlight.store.schema_ddl import Cluster
from tests.support.servers import free_port, wait_until_answering

ROOT = Path(__file__).resolve().parents[2]

# A cluster of one shard whose one replica is this engine (tcp_port is the port it would listen on: a replica
# at that address is local, so Distributed tables read and write the local tables in-process, no network).
ONE_SHARD_CLUSTER = """<clickhouse>
  <tcp_port>9000</tcp_port>
  <remote_servers>
    <{name}><shard><replica><host>localhost</host><port>9000</port></replica></shard></{name}>
  </remote_servers>
</clickhouse>
"""


class Standin:
    def __init__(self, data_dir: Path, config_file: Path | None = None) -> None:
        self.data_dir, self.config_file, self.port, self.process = data_dir, config_file, free_port(), None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/default"

    def start(self, timeout: float = 30) -> "Standin":
        log = self.data_dir.with_suffix(".log")
        config = ["--config-file", str(self.config_file)] if self.config_file else []
        with open(log, "ab") as out:  # a file, not a pipe nobody drains
            self.process = subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    "tests.support.clickhouse_standin",
                    "--port",
                    str(self.port),
                    "--data-dir",
                    str(self.data_dir),
                    *config,
                ],
                cwd=ROOT,
                stdout=out,
                stderr=out,
            )
        wait_until_answering(self.process, f"http://127.0.0.1:{self.port}/ping", timeout, "stand-in", log.read_text)
        return self

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(30)


class AsEachNodeRunsIt:
    """A client that runs each ON CLUSTER statement as ClickHouse's DDL worker runs it on a node: without the
    clause (chDB has no Keeper for the worker)."""

    def __init__(self, client, cluster: Cluster) -> None:
        self._client, self._clause = client, f" ON CLUSTER {cluster.name}"

    def __getattr__(self, name):
        return getattr(self._client, name)

    def command(self, sql, *args, **kwargs):
        return self._client.command(sql.replace(self._clause, ""), *args, **kwargs)


def one_shard_cluster(folder: Path, cluster: Cluster) -> Standin:
    """A started stand-in configured with `cluster` (one shard: the engine itself), the cluster form applied."""
    config = folder / "config.xml"
    config.write_text(ONE_SHARD_CLUSTER.format(name=cluster.name))
    server = Standin(folder / "engine", config).start()
    apply_cluster_schema(
        AsEachNodeRunsIt(clickhouse_connect.get_client(dsn=server.url, compress=False), cluster), cluster
    )
    return server
