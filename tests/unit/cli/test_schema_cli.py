"""`harborlight schema`: the DDL on stdout; bad input is one line and a non-zero exit."""

import pytest

from tests.cli.commands import run


def test_the_cluster_form_is_printed_on_cluster_with_replicated_tables(capsys):
    code, out, err = run(capsys, "schema", "--cluster", "harborlight", "--replicated", "print")
    assert (code, err) == (0, "")
    assert "CREATE TABLE IF NOT EXISTS otel_traces_local ON CLUSTER harborlight (" in out
    assert "ENGINE = ReplicatedMergeTree('/clickhouse/tables/{shard}/{database}/{table}', '{replica}')" in out
    assert "ENGINE = Distributed('harborlight', currentDatabase(), 'otel_traces_local'," in out


@pytest.mark.parametrize(
    "argv, says",
    [
        (["--cluster", "my-cluster", "print"], "is not a ClickHouse identifier"),
        (["--replicated", "print"], "give --cluster NAME too"),
        (["--cluster", "hl", "apply"], "apply needs --clickhouse-url"),
    ],
)
def test_bad_input_is_one_line(capsys, argv, says):
    code, out, err = run(capsys, "schema", *argv)
    assert code == 2 and out == "" and says in err and err.count("\n") == 1
