"""`harborlight report JOB --format html` (GET /api/jobs/{job}/report?format=html): one self-contained
page, opened in a real headless Chromium (Debian's package, driven by Playwright) with every network
request refused: the page renders, each chart is drawn by Plotly, nothing logs an error, and it says
what the API says."""

import shutil
import uuid

import httpx
import pytest

from harborlight.cli.main import main
from tests.query.job_stream import stream_job

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="needs Chromium: apt-get install chromium (.ci/run does)")

CHARTS = {"outcomes", "tokens", "cost", "time", "durations-count", "durations-time_s"}


@pytest.fixture(scope="module")
def jobs(server):
    return stream_job(server, uuid.uuid4().hex[:12]), stream_job(server, uuid.uuid4().hex[:12], failed_reward=1.0)


def _open(path):
    """The page as Chromium shows it with no network: (its text, the charts drawn, console and page errors)."""
    from playwright.sync_api import sync_playwright

    errors: list[str] = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        page = browser.new_page()
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.route(
            "**/*",
            lambda route: (
                route.continue_()
                if route.request.url.startswith("file:")
                else (errors.append(f"network: {route.request.url}"), route.abort())
            ),
        )
        page.goto(path.as_uri())
        # Plotly draws each chart's bars as `.barlayer .point` in its SVG
        page.wait_for_function("document.querySelectorAll('.chart .barlayer .point').length > 0")
        drawn = page.eval_on_selector_all(
            ".chart", "cs => cs.filter(c => c.querySelector('svg.main-svg .barlayer .point')).map(c => c.dataset.chart)"
        )
        bars = page.eval_on_selector_all('[data-chart="outcomes"] .barlayer .point', "ps => ps.length")
        text = page.inner_text("body")
        browser.close()
    return text, set(drawn), bars, errors


def test_the_page_renders_offline_with_its_charts_and_no_errors(server, jobs, tmp_path, capsys):
    job, other = jobs
    assert main(["report", job.job, "--format", "html", "--against", other.job, "--server", server.http_url]) == 0
    page = tmp_path / "report.html"
    page.write_text(capsys.readouterr().out)
    text, drawn, bars, errors = _open(page)
    assert errors == []
    assert drawn == CHARTS
    row = httpx.get(f"{server.http_url}/api/jobs/{job.job}", timeout=120).json()
    assert bars == sum(1 for n in row["counts"]["value"].values() if n)  # one bar per outcome seen
    assert f"harborlight report: {job.job}" in text
    assert "25.0%" in text and "[4.6%, 69.9%]" in text  # the raw solve rate and its interval, as the API has them
    assert job.resolved in text and "EnvironmentStartTimeoutError" in text
    assert f"Against {other.job} on 5 matched tasks" in text
    assert "add-feature" in text  # the task that flipped


def test_the_route_and_the_command_give_the_same_page(server, jobs, capsys):
    job, _ = jobs
    assert main(["report", job.job, "--format", "html", "--server", server.http_url]) == 0
    printed = capsys.readouterr().out
    served = httpx.get(f"{server.http_url}/api/jobs/{job.job}/report", params={"format": "html"}, timeout=120)
    assert served.headers["content-type"] == "text/html; charset=utf-8"
    assert printed == served.text and "Against" not in printed


def test_bad_comparisons_are_one_line(server, jobs, capsys):
    job, _ = jobs
    assert (
        main(["report", job.job, "--format", "html", "--against", f"{job.job}-nope", "--server", server.http_url]) == 1
    )
    assert capsys.readouterr().err.strip() == f"harborlight: no job named '{job.job}-nope'"
    assert main(["report", job.job, "--format", "json", "--against", job.job, "--server", server.http_url]) == 1
    assert capsys.readouterr().err.strip() == "harborlight: --against is for --format html"
