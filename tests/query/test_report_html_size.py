"""The HTML report of a one-trial job (a trial of the tour's real Harbor job, imported alone) is a small
file to share, under 0.6 MB where inlining Plotly's full library made it 4.9 MB (2.0 MB compressed), and
it still draws every chart in a headless Chromium with every network request refused."""

import io
import shutil
from contextlib import redirect_stdout

import pytest

from harborlight.cli.main import main
from tests.support.paths import REPO

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
TOUR = REPO / "examples" / "harbor-jobs" / "tour-careful"
CHARTS = {"outcomes", "tokens", "cost", "time", "durations-count", "durations-time_s"}


def _one_trial_job(where, name):
    job = where / name
    job.mkdir()
    for item in ("config.json", "result.json", "lock.json", "job.log"):
        shutil.copy(TOUR / item, job / item)
    trial = next(p for p in sorted(TOUR.iterdir()) if (p / "result.json").is_file())
    shutil.copytree(trial, job / trial.name)
    return job


@pytest.fixture(scope="module")
def page(server, tmp_path_factory):
    where = tmp_path_factory.mktemp("jobs")
    job = _one_trial_job(where, f"one-trial-{where.name}")
    assert main(["import", "harbor", str(job), "--server", server.http_url]) == 0
    server.caught_up()
    printed = io.StringIO()
    with redirect_stdout(printed):
        assert main(["report", job.name, "--format", "html", "--server", server.http_url]) == 0
    path = where / "report.html"
    path.write_text(printed.getvalue())
    return path


def test_the_one_trial_report_is_under_0_6_mb(page):
    assert page.stat().st_size < 600_000, page.stat().st_size


@pytest.mark.skipif(CHROMIUM is None, reason="needs Chromium: apt-get install chromium (.ci/run does)")
def test_it_draws_every_chart_offline(page):
    from playwright.sync_api import sync_playwright

    errors: list[str] = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        tab = browser.new_page()
        tab.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        tab.on("pageerror", lambda e: errors.append(str(e)))
        tab.route(
            "**/*",
            lambda route: (
                route.continue_()
                if route.request.url.startswith("file:")
                else (errors.append(f"network: {route.request.url}"), route.abort())
            ),
        )
        tab.goto(page.as_uri())
        tab.wait_for_function(f"document.querySelectorAll('.chart svg.main-svg .barlayer').length >= {len(CHARTS)}")
        drawn = tab.eval_on_selector_all(
            ".chart", "cs => cs.filter(c => c.querySelector('svg.main-svg .barlayer .point')).map(c => c.dataset.chart)"
        )
        title = tab.text_content('[data-chart="outcomes"] .gtitle')
        browser.close()
    assert errors == []
    assert set(drawn) == CHARTS
    assert title == "finished trials by outcome"
