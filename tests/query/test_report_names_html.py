"""The HTML report draws names as text: a trial named `<a href=...>` or `<b>` is neither a link nor markup
in Plotly's charts (its tick labels, legends, hover labels and titles read a small HTML of their own) nor
in the page around them. Read from the page's own HTML: each chart's figure as Plotly gets it, and the
page's elements."""

import json
import re
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
        traces.span("chat", {"gen_ai.operation.name": "chat", "gen_ai.request.model": LINK,
                             "gen_ai.usage.input_tokens": 100 + i, "gen_ai.usage.output_tokens": 10,
                             "gen_ai.usage.cost": 0.01}, parent=root, start_ms=2, dur_ms=15)
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
    assert set(data[0]["x"]) == {"&lt;a href=\"https://evil.example/\"&gt;click&lt;/a&gt;",
                                 "&lt;b&gt;bold&lt;/b&gt; &amp; &lt;br&gt;broken", "2026-12-01", "42"}
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
