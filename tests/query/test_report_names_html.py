"""The HTML report draws names as text: a trial named `<a href=...>` or `<b>` is neither a link nor markup
in Plotly's charts (its tick labels, legends, hover labels and titles read a small HTML of their own) nor
in the page around them. Read from the page's own HTML (each chart's figure as Plotly gets it, and the
page's elements) and, with Chromium, from the page as a browser draws it."""

import json
import re
import shutil
import uuid
from html.parser import HTMLParser

import httpx
import pytest

from tests.agent.otlp_build import Traces

LINK = '<a href="https://evil.example/">click</a>'
NAMES = (LINK, "<b>bold</b> & <br>broken", "2026-12-01", "42")


@pytest.fixture(scope="module")
def page(server):
    job = f"job-{uuid.uuid4().hex[:12]}-names"
    for i, trial in enumerate(NAMES):
        traces = Traces({"service.name": "agent", "harbor.job.name": job, "harbor.trial.name": trial})
        root = traces.span("session", {"lmnr.span.type": "EVALUATION"}, dur_ms=1000)
        traces.span(
            "chat",
            {
                "gen_ai.operation.name": "chat",
                "gen_ai.request.model": LINK,
                "gen_ai.usage.input_tokens": 100 + i,
                "gen_ai.usage.output_tokens": 10,
                "gen_ai.usage.cost": 0.01,
            },
            parent=root,
            start_ms=2,
            dur_ms=15,
        )
        traces.send(server)
    server.caught_up()
    reply = httpx.get(f"{server.http_url}/api/jobs/{job}/report", params={"format": "html"}, timeout=120)
    assert reply.status_code == 200, reply.text
    return reply.text


def _figures(html: str) -> dict[str, tuple[list, dict]]:
    """Each chart's (data, layout), as the page hands them to Plotly.newPlot."""
    decoder = json.JSONDecoder()
    figures = {}
    for call in re.finditer(r'Plotly\.newPlot\(\s*"([^"]+)",\s*', html):
        data, end = decoder.raw_decode(html, call.end())
        layout, _ = decoder.raw_decode(html, re.compile(r",\s*").match(html, end).end())
        figures[call.group(1)] = data, layout
    return figures


def _strings(document) -> list[str]:
    found, stack = [], [document]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            found.append(item)
        elif isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return found


def test_plotly_gets_every_name_escaped(page):
    figures = _figures(page)
    assert {"chart-tokens", "chart-cost"} <= set(figures)
    for chart, (data, layout) in figures.items():
        for text in _strings(data) + _strings(layout.get("title", {})) + _strings(layout.get("xaxis", {})):
            assert "<" not in text and ">" not in text, (chart, text)
            assert not re.search(r"&(?!(lt|gt|amp);)", text), (chart, text)
    data, layout = figures["chart-tokens"]
    assert set(data[0]["x"]) == {
        '&lt;a href="https://evil.example/"&gt;click&lt;/a&gt;',
        "&lt;b&gt;bold&lt;/b&gt; &amp; &lt;br&gt;broken",
        "2026-12-01",
        "42",
    }
    assert layout["xaxis"]["type"] == "category"  # "2026-12-01" and "42" stay names, not a date or a number
    assert figures["chart-cost"][1]["xaxis"]["type"] == "category"


class _Elements(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[str] = []
        self.text: list[str] = []

    def handle_starttag(self, tag, attrs) -> None:
        self.tags.append(tag)

    def handle_data(self, data) -> None:
        self.text.append(data)


def test_the_page_around_the_charts_has_no_element_of_a_name(page):
    elements = _Elements()
    elements.feed(page)
    assert "a" not in elements.tags and "b" not in elements.tags and "br" not in elements.tags
    assert LINK in "".join(elements.text)  # the trials table shows the name as it is


CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


@pytest.mark.skipif(CHROMIUM is None, reason="needs Chromium: apt-get install chromium (.ci/run does)")
def test_a_browser_draws_the_names_as_text(page, tmp_path):
    from playwright.sync_api import sync_playwright

    path = tmp_path / "report.html"
    path.write_text(page)
    errors: list[str] = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        tab = browser.new_page()
        tab.on("pageerror", lambda e: errors.append(str(e)))
        tab.route(
            "**/*",
            lambda route: (
                route.continue_()
                if route.request.url.startswith("file:")
                else (errors.append(f"network: {route.request.url}"), route.abort())
            ),
        )
        tab.goto(path.as_uri())
        tab.wait_for_function("document.querySelectorAll('[data-chart=\"tokens\"] .xtick text').length >= 4")
        links = tab.eval_on_selector_all("svg a, svg [href], svg [*|href]", "els => els.length")
        bold = tab.eval_on_selector_all(".xtick text tspan[style*='bold']", "els => els.length")
        ticks = {
            chart: tab.eval_on_selector_all(f'[data-chart="{chart}"] .xtick text', "ts => ts.map(t => t.textContent)")
            for chart in ("tokens", "cost")
        }
        browser.close()
    assert errors == []
    assert links == 0 and bold == 0
    for chart, shown in ticks.items():
        assert set(shown) == set(NAMES), chart  # each name drawn as its characters
