"""Bad input to the query commands is one line on stderr and a non-zero exit, never a traceback."""

import pytest

from harborlight.settings import Settings
from tests.cli.commands import process, run
from tests.support.servers import InProcessServer

TOKEN = "tok-cli"


@pytest.fixture(scope="module")
def guarded(store_dir, server):
    """A second server on the session store that asks for a token."""
    srv = InProcessServer(Settings(data_dir=store_dir, auth_token=TOKEN)).start()
    yield srv
    srv.stop()


@pytest.mark.parametrize(
    "argv, said",
    [
        (("trial", "no-such-trial"), "no trial named 'no-such-trial'"),
        (("trace", "no-such-trial"), "no agent events for trial 'no-such-trial'"),
        (("compare", "no-such-job", "other-no-such-job"), "no job named 'no-such-job', 'other-no-such-job'"),
        (("compare", "just-one"), "compare needs two or more jobs, baseline first"),
        (("report", "no-such-job"), "no job named 'no-such-job'"),
        (
            ("spans", "--kind", "tools"),
            "kind must be one of llm_request, reasoning, output, tool, subagent, session, "
            "user_message, compaction, group",
        ),
        (("spans", "--status", "teapot"), "status is an HTTP status code (e.g. 429) or one of ok, error"),
        (
            ("spans", "--since", "yesterday"),
            "since: Input should be a valid datetime or date, input is too short, got 'yesterday'",
        ),
        (
            ("jobs", "--cursor", "nonsense"),
            "cursor is not one this server issued; pass next_cursor from the previous page",
        ),
    ],
)
def test_bad_questions_are_the_apis_one_line(server, capsys, argv, said):
    code, out, err = run(capsys, *argv, "--server", server.http_url)
    assert (code, out, err) == (1, "", f"harborlight: {said}\n")


@pytest.mark.parametrize(
    "argv, said",
    [
        (
            ("spans", "--limit", "0"),
            "argument --limit: must be a whole number of at least 1, got '0' (see: harborlight spans --help)",
        ),
        (("trial",), "the following arguments are required: TRIAL (see: harborlight trial --help)"),
        (("trace", "t", "--depth", "2"), "unrecognized arguments: --depth 2 (see: harborlight --help)"),
    ],
)
def test_bad_flags_are_one_line_and_exit_2(argv, said):
    done = process(*argv)
    assert (done.returncode, done.stdout, done.stderr) == (2, "", f"harborlight: {said}\n")


def test_an_unreachable_server_is_one_line(capsys):
    code, _, err = run(capsys, "spans", "--server", "http://127.0.0.1:9")
    assert code == 1
    assert err.startswith("harborlight: cannot reach harborlight at http://127.0.0.1:9 (") and err.count("\n") == 1
    assert err.endswith("; is `harborlight serve` running there?\n")


def test_the_grpc_port_given_as_the_server_says_which_port_to_use(server, capsys):
    code, _, err = run(capsys, "jobs", "--server", f"http://127.0.0.1:{server.run.grpc_port}")
    assert code == 1 and err.count("\n") == 1
    assert err.startswith(f"harborlight: cannot reach harborlight at http://127.0.0.1:{server.run.grpc_port} (")
    assert "looks like the OTLP/gRPC port" in err and "http://127.0.0.1:4318" in err


def test_an_api_suffix_says_to_pass_the_address_alone(server, capsys):
    code, _, err = run(capsys, "jobs", "--server", f"{server.http_url}/api")
    assert code == 1 and err.count("\n") == 1
    assert f"pass the server's address without a path, e.g. {server.http_url}" in err


def test_a_server_asking_for_a_token(guarded, jobs, capsys):
    code, _, err = run(capsys, "trial", jobs.job.resolved, "--server", guarded.http_url)
    assert (code, err) == (1, f"harborlight: {guarded.http_url} asks for a token: pass --token\n")
    code, out, _ = run(capsys, "trial", jobs.job.resolved, "--server", guarded.http_url, "--token", TOKEN)
    assert code == 0 and "resolved" in out


def test_server_and_token_from_the_environment(guarded, jobs):
    env = {"HARBORLIGHT_SERVER": guarded.http_url, "HARBORLIGHT_TOKEN": TOKEN}
    done = process("spans", "--trial", jobs.job.resolved, "--kind", "tool", "--json", env=env)
    assert done.returncode == 0, done.stderr
    assert done.stdout.count('"execute_tool ') == 4
    both = process("spans", "--server", guarded.http_url, "--data-dir", "somewhere", env=env)
    assert (both.returncode, both.stderr) == (
        1,
        "harborlight: pass --server or --data-dir / --clickhouse-url, not both\n",
    )


@pytest.mark.parametrize(
    "argv, usage",
    [
        (("spans",), "spans ..."),
        (("trial", "t"), "trial TRIAL"),
        (("trace", "t"), "trace TRIAL"),
        (("jobs",), "jobs"),
        (("compare", "a", "b"), "compare JOB JOB..."),
    ],
)
def test_a_held_data_directory_says_so_and_suggests_server(store_dir, server, argv, usage):
    held = process(*argv, "--data-dir", str(store_dir))
    assert held.returncode == 1 and held.stdout == ""
    (line,) = held.stderr.splitlines()
    assert line.startswith(f"harborlight: the data directory {store_dir} is held by another running harborlight")
    assert line.endswith(f"; or run: harborlight {usage} --server http://HOST:PORT")


def test_a_missing_data_directory_is_one_line_and_creates_nothing(tmp_path):
    done = process("trace", "t", "--data-dir", str(tmp_path / "none"))
    assert (done.returncode, done.stderr) == (
        1,
        f"harborlight: no harborlight store in {tmp_path / 'none'} (pass --data-dir, or --server URL)\n",
    )
    assert not (tmp_path / "none").exists()


def test_a_clickhouse_server_that_is_down_is_one_line():
    done = process("jobs", "--clickhouse-url", "http://127.0.0.1:9/default")
    assert done.returncode == 1 and done.stdout == ""
    (line,) = done.stderr.splitlines()
    assert line.startswith("harborlight: cannot reach ClickHouse at 127.0.0.1:9: ")
    assert line.endswith("; or run: harborlight jobs --server http://HOST:PORT")


def test_an_import_to_an_unreachable_server_says_it_in_the_same_words(tmp_path, capsys):
    line = tmp_path / "spans.jsonl"
    line.write_text(
        '{"resourceSpans":[{"resource":{"attributes":[]},"scopeSpans":[{"spans":[{"traceId":'
        '"0102030405060708090a0b0c0d0e0f10","spanId":"0102030405060708","name":"s",'
        '"startTimeUnixNano":"1764547200000000000","endTimeUnixNano":"1764547200000000001"}]}]}]}\n'
    )
    code, _, err = run(capsys, "import", "otlp", str(line), "--server", "http://127.0.0.1:9")
    assert code == 1 and err.count("\n") == 1
    assert err.startswith("harborlight: cannot reach harborlight at http://127.0.0.1:9 (") and "()" not in err
