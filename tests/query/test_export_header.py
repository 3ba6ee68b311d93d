"""GET /api/jobs/{job}/export names its download per RFC 6266: a job name with a quote, `;`, CR / LF or
non-ASCII characters stays one `filename` (an ASCII fallback) and one exact `filename*` (RFC 8187)."""

import re
import urllib.parse

import httpx
import pytest

from harborlight.api.routes.transfer_routes import attachment
from tests.cli.conftest import send_subagent_trial


def _params(header: str) -> list[tuple[str, str]]:
    """The header's parameters (name, raw value) in order, read as RFC 6266's grammar reads them: a value is
    a quoted string or a token."""
    kind, rest = header.split(";", 1)
    assert kind == "attachment"
    params = re.findall(r'\s*([^=;\s]+)=("(?:[^"\\]|\\.)*"|[^;]*)\s*(?:;|$)', rest)
    assert "".join(f"{k}={v}" for k, v in params).replace(" ", "") == rest.replace(";", "").replace(" ", "")
    return [(k.lower(), v) for k, v in params]


@pytest.mark.parametrize(
    "job", ['a"; filename="evil.sh', "job\r\nSet-Cookie: x=1", "café ☕ 'quoted'", "plain-job_1.2"]
)
def test_a_name_is_one_filename_and_one_exact_filename_star(job):
    header = attachment(f"{job}.tar.gz")
    params = _params(header)
    assert [k for k, _ in params] == ["filename", "filename*"]
    fallback = params[0][1]
    assert fallback.startswith('"') and fallback.endswith('"') and '"' not in fallback[1:-1]
    assert all(32 <= ord(c) < 127 for c in header)
    encoding, _, quoted = params[1][1].partition("''")
    assert encoding == "UTF-8" and urllib.parse.unquote(quoted, encoding="utf-8") == f"{job}.tar.gz"


def test_the_export_of_a_job_with_a_quote_in_its_name(server, unique):
    job = f'{unique}"; filename="evil.sh'
    send_subagent_trial(server, job, f"{unique}-trial")
    server.caught_up()
    reply = httpx.get(f"{server.http_url}/api/jobs/{urllib.parse.quote(job, safe='')}/export", timeout=120)
    assert reply.status_code == 200, reply.text
    params = _params(reply.headers["content-disposition"])
    assert [k for k, _ in params] == ["filename", "filename*"]
    assert urllib.parse.unquote(params[1][1].removeprefix("UTF-8''")) == f"{job}.tar.gz"
