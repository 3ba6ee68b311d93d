"""The API's reference pages render with no network, and the server's root points to them."""

import shutil

import httpx
import pytest

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


def _rendered(url: str, selector: str) -> tuple[str, list[str]]:
    """The text of `selector` once Chromium, allowed to reach only the server, has drawn it; what it tried
    to fetch elsewhere, and its errors."""
    from playwright.sync_api import sync_playwright

    server = url.split("/", 3)[:3]
    problems: list[str] = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        page = browser.new_page()
        page.on("pageerror", lambda e: problems.append(str(e)))
        page.route(
            "**/*",
            lambda route: (
                route.continue_()
                if route.request.url.split("/", 3)[:3] == server
                else (problems.append(f"network: {route.request.url}"), route.abort())
            ),
        )
        page.goto(url)
        page.wait_for_selector(selector, timeout=120_000)
        text = page.inner_text(selector)
        browser.close()
    return text, problems


@pytest.mark.skipif(CHROMIUM is None, reason="needs Chromium: apt-get install chromium (.ci/run does)")
@pytest.mark.parametrize(
    ("path", "selector", "drawn"),
    [("/docs", ".swagger-ui .info .title", "harborlight"), ("/redoc", ".menu-content", "trials")],
)
def test_the_reference_renders_with_no_network(server, path, selector, drawn):
    text, problems = _rendered(f"{server.http_url}{path}", selector)
    # ReDoc's "API docs by Redocly" badge links its logo from its CDN: an image the page draws without
    problems = [p for p in problems if p != "network: https://cdn.redoc.ly/redoc/logo-mini.svg"]
    assert problems == []
    assert drawn in text


def test_the_root_points_to_the_reference_and_the_first_commands(server):
    answer = httpx.get(f"{server.http_url}/", timeout=60)
    assert answer.status_code == 200 and answer.headers["content-type"].startswith("text/html")
    for link in ('href="/docs"', 'href="/redoc"', 'href="/openapi.json"', "harborlight jobs"):
        assert link in answer.text
    for page in ("/docs", "/redoc"):
        html = httpx.get(f"{server.http_url}{page}", timeout=60).text
        assert "cdn.jsdelivr.net" not in html and "fonts.googleapis.com" not in html
