"""deploy/cluster/docker-compose.yaml is a compose file Docker Compose accepts, and the cluster it configures is
the one its harborlight commands name."""

import shlex
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
import yaml

from harborlight.cli.main import build_parser

CLUSTER = Path(__file__).resolve().parents[2] / "deploy" / "cluster"
COMPOSE = CLUSTER / "docker-compose.yaml"


def _compose_missing() -> str | None:
    """Why `docker compose` cannot run here, or None when it can."""
    try:
        found = subprocess.run(["docker", "compose", "version"], capture_output=True, text=True, timeout=30)
    except FileNotFoundError:
        return "docker is not installed"
    return None if found.returncode == 0 else f"docker compose is not available: {found.stderr.strip().splitlines()[0]}"


def test_docker_compose_accepts_the_cluster_file():
    if reason := _compose_missing():
        pytest.skip(reason)
    checked = subprocess.run(
        ["docker", "compose", "-f", str(COMPOSE), "config", "--quiet"], capture_output=True, text=True, timeout=60
    )
    assert checked.returncode == 0, checked.stderr


def _harborlight_commands():
    services = yaml.safe_load(COMPOSE.read_text())["services"]
    for name, service in services.items():
        command = service.get("command", "")
        if "harborlight " in command:
            line = shlex.split(command)[-1].split("&& ")[-1]
            yield name, shlex.split(line)


def test_every_harborlight_command_parses_and_names_the_configured_cluster():
    """The cluster in remote_servers, and each shard's macros, are what the schema and the receivers use."""
    config = ET.parse(CLUSTER / "clickhouse" / "cluster.xml").getroot()
    [cluster] = list(config.find("remote_servers"))
    shards = {int(ET.parse(p).getroot().findtext("macros/shard")) for p in CLUSTER.glob("clickhouse/shard-*.xml")}
    assert shards == set(range(1, len(cluster.findall("shard")) + 1)) == {1, 2}
    commands = dict(_harborlight_commands())
    assert {"schema", "receiver-1", "receiver-2"} <= commands.keys()
    for name, words in commands.items():
        assert words[0] == "harborlight", name
        args = build_parser().parse_args(words[1:])
        assert args.cluster == cluster.tag, name


@pytest.mark.parametrize("config", sorted(CLUSTER.glob("clickhouse/*.xml")), ids=lambda p: p.name)
def test_every_clickhouse_configuration_is_well_formed_xml(config):
    """ClickHouse refuses to start on a configuration file it cannot parse (a "--" inside a comment, say)."""
    assert ET.parse(config).getroot().tag == "clickhouse"
