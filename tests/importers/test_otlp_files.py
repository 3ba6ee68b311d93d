"""`import otlp`: Collector file exporter JSON lines, OTLP/JSON documents and OTLP protobuf (framed or
bare, gzip or not) are stored through the live ingest path, rejected items are reported with their
reasons; bad input is one clear line and a non-zero exit, and what came before it stays stored."""

import gzip
import json

import httpx
from google.protobuf import json_format

from tests.agent.otlp_build import Logs, Traces
from tests.importers.cli import run, run_process


def _traces(service: str, n: int, bad: int = 0) -> Traces:
    traces = Traces({"service.name": service, "harbor.job.name": f"job-{service}"})
    for i in range(n):
        traces.span(f"chat m{i}", {"gen_ai.operation.name": "chat"}, start_ms=i)
    for _ in range(bad):
        traces._scope.spans.add(
            trace_id=b"\x01" * 3, span_id=b"\x02" * 8, name="bad", start_time_unix_nano=1, end_time_unix_nano=2
        )
    return traces


def _json_line(message) -> str:
    document = json_format.MessageToDict(message)
    for rs in document.get("resourceSpans", []):  # OTLP/JSON ids are hex, not base64
        for ss in rs["scopeSpans"]:
            for span in ss["spans"]:
                for key in ("traceId", "spanId", "parentSpanId"):
                    if key in span:
                        span[key] = __import__("base64").b64decode(span[key]).hex()
    return json.dumps(document)


def _stored(server, service: str) -> int:
    return (
        server.sql("SELECT count() FROM otel_traces WHERE ServiceName = {s:String}", s=service)[0][0]
        + server.sql("SELECT count() FROM otel_logs WHERE ServiceName = {s:String}", s=service)[0][0]
    )


def test_every_file_shape_is_stored_and_rejections_are_reported(server, unique, tmp_path, capsys):
    lines = tmp_path / "traces.jsonl"
    logs = Logs({"service.name": unique}).request
    Logs.event.__get__(rl := Logs({"service.name": unique}))({"event.name": "x"}, at_ms=5)
    lines.write_text(
        _json_line(_traces(unique, 3, bad=1).request) + "\n" + json.dumps(json_format.MessageToDict(rl.request)) + "\n"
    )
    document = tmp_path / "doc.json"
    document.write_text(json.dumps(json.loads(_json_line(_traces(unique, 2).request)), indent=2))
    framed = tmp_path / "traces.pb"
    bodies = [_traces(unique, 4).request.SerializeToString() for _ in range(2)]
    framed.write_bytes(b"".join(len(b).to_bytes(4, "big") + b for b in bodies))
    bare = tmp_path / "one.pb.gz"
    bare.write_bytes(gzip.compress(_traces(unique, 1).request.SerializeToString()))
    del logs

    code, out, err = run(
        capsys, "import", "otlp", str(lines), str(document), str(framed), str(bare), "--server", server.http_url
    )
    assert code == 0, err
    assert "stored 15 new item(s) from 4 file(s) in 6 request(s)" in out
    assert "rejected 1 item(s): trace_id must be 16 bytes, got 3" in out
    assert _stored(server, unique) == 15

    code, out, _ = run(capsys, "import", "otlp", str(framed), "--server", server.http_url)
    assert code == 0 and _stored(server, unique) == 15  # the same requests again: acknowledged, stored once

    reply = httpx.post(
        f"{server.http_url}/api/import/otlp",
        params={"name": "doc.json"},
        content=_json_line(_traces(unique, 2).request).encode(),
    )
    assert reply.status_code == 200 and reply.json()["stored"] == 2 and _stored(server, unique) == 17
    refused = httpx.post(f"{server.http_url}/api/import/otlp", content=b'{"resourceSpans": [')
    assert refused.status_code == 400 and "not valid JSON" in refused.json()["detail"]


def test_truncated_file_is_one_line_and_what_came_before_stays(server, unique, tmp_path, capsys):
    good = tmp_path / "good.jsonl"
    good.write_text(_json_line(_traces(unique, 2).request) + "\n")
    cut = tmp_path / "cut.jsonl"
    cut.write_text(_json_line(_traces(unique, 3).request) + "\n" + _json_line(_traces(unique, 3).request)[:50])
    code, out, err = run(capsys, "import", "otlp", str(good), str(cut), "--server", server.http_url)
    assert code == 1 and out == ""
    assert err.count("\n") == 1 and "cut.jsonl: line 2 is not valid JSON (truncated?)" in err
    assert _stored(server, unique) == 5

    framed = tmp_path / "cut.pb"
    body = _traces(unique, 1).request.SerializeToString()
    framed.write_bytes(len(body).to_bytes(4, "big") + body + (100).to_bytes(4, "big") + b"\x0a\x01")
    code, _, err = run(capsys, "import", "otlp", str(framed), "--server", server.http_url)
    assert code == 1 and "request 2 is cut short" in err and _stored(server, unique) == 6


def test_bad_harbor_input_and_unknown_job_are_one_line(server, unique, tmp_path, capsys):
    (tmp_path / "notajob").mkdir()
    code, _, err = run(capsys, "import", "harbor", str(tmp_path / "notajob"), "--server", server.http_url)
    assert code == 1 and err.strip().endswith("not a Harbor job directory (no config.json)")
    code, _, err = run(capsys, "export-job", f"nosuch-{unique}", "--out", str(tmp_path), "--server", server.http_url)
    assert code == 1 and err == f"harborlight: unknown job 'nosuch-{unique}': no telemetry is stored under that name\n"
    assert httpx.get(f"{server.http_url}/api/jobs/nosuch-{unique}/export").status_code == 404


def test_direct_mode_on_a_data_dir_and_a_held_directory(server, store_dir, tmp_path):
    data = tmp_path / "store"
    lines = tmp_path / "t.jsonl"
    lines.write_text(_json_line(_traces("direct", 2).request) + "\n")
    done = run_process("import", "otlp", str(lines), "--data-dir", str(data))
    assert done.returncode == 0, done.stderr
    assert "stored 2 new item(s)" in done.stdout
    exported = run_process("export-job", "job-direct", "--out", str(tmp_path / "out"), "--data-dir", str(data))
    assert exported.returncode == 0, exported.stderr
    # spans without a harness lifecycle: an agent's own trial, written with its result.json so Harbor reads it
    assert "(1 trial(s))" in exported.stdout
    held = run_process("import", "otlp", str(lines), "--data-dir", str(store_dir))
    assert held.returncode == 1 and held.stderr.count("\n") == 1
    assert "held by another running harborlight" in held.stderr and "--server" in held.stderr


def test_a_wrong_harbor_path_says_what_to_pass_instead(server, tmp_path, capsys):
    from tests.importers.harbor_job import write_job

    job = write_job(tmp_path, "a-job")
    folder = job.parent
    code, _, err = run(capsys, "import", "harbor", str(folder), "--server", server.http_url)
    assert code == 1 and err.count("\n") == 1
    assert f"it holds job directories; pass them, e.g. {job}" in err

    trial = next(p for p in job.iterdir() if (p / "agent").is_dir())
    code, _, err = run(capsys, "import", "harbor", str(trial), "--server", server.http_url)
    assert code == 1 and err.strip().endswith(f"a trial directory, not a job directory: pass its job, {trial.parent}")

    code, _, err = run(capsys, "import", "harbor", str(job / "config.json"), "--server", server.http_url)
    assert code == 1 and "a file, not a Harbor job directory: pass the directory" in err


def test_a_reimport_says_nothing_new_was_stored(server, unique, tmp_path, capsys):
    lines = tmp_path / "t.jsonl"
    lines.write_text(_json_line(_traces(unique, 3).request) + "\n")
    code, out, _ = run(capsys, "import", "otlp", str(lines), "--server", server.http_url)
    assert code == 0 and "stored 3 new item(s) from 1 file(s) in 1 request(s)" in out
    code, out, _ = run(capsys, "import", "otlp", str(lines), "--server", server.http_url)
    assert code == 0 and "stored 0 new item(s)" in out
    assert "1 request(s) (3 item(s)) were already stored, not stored again" in out
    assert _stored(server, unique) == 3
