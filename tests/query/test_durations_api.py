"""GET /api/trials/{trial}/durations and /api/jobs/{job}/durations: the field guide's span-duration
charts. Checked against the trial's own trace (GET .../trace), binned here with `bisect` over the
published edges: the engine's counting must agree with the spans the trace route lists."""

import bisect
import uuid
from collections import defaultdict

import httpx
import pytest

from tests.query.job_stream import stream_job


@pytest.fixture(scope="module")
def streamed(server):
    return stream_job(server, uuid.uuid4().hex[:12])


def _get(server, path: str) -> httpx.Response:
    return httpx.get(f"{server.http_url}{path}", timeout=120)


def _events(nodes: list[dict]):
    for n in nodes:
        yield n["event"]
        yield from _events(n["children"])


def _expected(trace: dict, edges_s: list[float]) -> tuple[dict, int]:
    counts: dict[str, list[int]] = defaultdict(lambda: [0] * (len(edges_s) + 1))
    unclocked = 0
    assert not trace["truncated"]
    for e in _events(trace["roots"]):
        if e["kind"] == "group" or e["provenance"].get("kind") == "derived":
            continue
        if e["end_unix_nano"] is None or e["timing"] == "unknown":
            unclocked += 1
            continue
        counts[e["kind"]][bisect.bisect_right(edges_s, (e["end_unix_nano"] - e["start_unix_nano"]) / 1e9)] += 1
    return dict(counts), unclocked


def test_a_trials_bins_hold_its_traced_spans(server, streamed):
    chart = _get(server, f"/api/trials/{streamed.limited}/durations").json()
    edges = chart["edges_s"]["value"]
    assert edges[0] == 0.001 and edges[4] == 0.01 and edges == sorted(edges)  # 4 bins per decade from 1 ms
    expected, unclocked = _expected(_get(server, f"/api/trials/{streamed.limited}/trace").json(), edges)
    assert {k: r["count"] for k, r in chart["by_kind"]["value"].items()} == expected
    assert "llm_request" in expected and sum(map(sum, expected.values())) == chart["n_spans"]["value"]
    assert chart["n_without_clock"]["value"] == unclocked
    shares = chart["time_share_by_kind"]["value"]
    assert (
        abs(sum(shares.values()) - 1) < 1e-9
        and chart["time_share_by_kind"]["note"] == "of summed span time, not of the run"
    )


def test_a_jobs_bins_are_its_trials_summed(server, streamed):
    job = _get(server, f"/api/jobs/{streamed.job}/durations").json()
    total: dict[str, list[int]] = defaultdict(lambda: [0] * (len(job["edges_s"]["value"]) + 1))
    trials = _get(server, f"/api/jobs/{streamed.job}/trials").json()["items"]
    for t in trials:
        chart = _get(server, f"/api/trials/{t['trial']}/durations").json()
        for kind, row in (chart["by_kind"]["value"] or {}).items():
            total[kind] = [a + b for a, b in zip(total[kind], row["count"], strict=True)]
    assert {k: r["count"] for k, r in job["by_kind"]["value"].items()} == dict(total)


def test_unknown_names_are_404(server, streamed):
    assert _get(server, f"/api/jobs/{streamed.job}-nope/durations").status_code == 404
    reply = _get(server, f"/api/trials/{streamed.job}-nope/durations")
    assert reply.status_code == 404 and reply.json()["detail"] == f"no trial named '{streamed.job}-nope'"
