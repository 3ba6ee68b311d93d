"""`totals` on GET /api/trials/{trial}/trace and in `harborlight trace`: the producer's own totals, shown as
it sent them. From real telemetry: Claude Code's, Gemini CLI's and Codex's own recordings
(tests/real_agents/fixtures, replayed with `harborlight import otlp`) and a Harbor job directory written with
Harbor's own models (tests/importers/harbor_job.py). Expected values are read off the recorded OTLP points
and the trajectory files, never off harborlight's answers."""

import json
from collections import defaultdict

import httpx
import pytest
from harbor.models.trajectories import Trajectory

from harborlight.read.derive.producer_totals import NONE_SENT
from tests.importers.cli import run
from tests.importers.harbor_job import import_job, write_job
from tests.real_agents.cases import replayed
from tests.real_agents.recordings import load


def _trace(server, trial: str, job: str) -> dict:
    response = httpx.get(f"{server.http_url}/api/trials/{trial}/trace", params={"job": job}, timeout=120)
    assert response.status_code == 200, response.text
    return response.json()


def _attributes(items: list[dict]) -> dict:
    return {a["key"]: next(iter(a["value"].values())) for a in items}


def _recorded(stem: str, metric: str, type_key: str | None) -> dict[tuple, float]:
    """(model, type) -> the recorded points of `metric` added up (delta), or each series' last (cumulative)."""
    _, path = load(stem)
    series: dict[tuple, list[tuple[int, float, int]]] = defaultdict(list)
    for line in path.read_text().splitlines():
        for rm in json.loads(line).get("resourceMetrics", []):
            for sm in rm["scopeMetrics"]:
                for m in sm["metrics"]:
                    if m["name"] != metric:
                        continue
                    data = m.get("sum") or m["histogram"]
                    for p in data["dataPoints"]:
                        value = float(p["sum"] if "histogram" in m else p.get("asDouble", p.get("asInt")))
                        key = json.dumps(p["attributes"], sort_keys=True), p.get("startTimeUnixNano")
                        series[key].append((int(p["timeUnixNano"]), value, data["aggregationTemporality"]))
    out: dict[tuple, float] = defaultdict(float)
    for (attrs, _), points in series.items():
        a = _attributes(json.loads(attrs))
        temporality = points[0][2]
        total = max(points)[1] if temporality == 2 else sum(v for _, v, _ in points)
        out[a.get("model"), a.get(type_key) if type_key else None] += total
    return dict(out)


def _served(totals: dict, metric: str) -> dict[tuple, float]:
    return {(c["model"], c["type"]): c["value"] for c in totals["value"]["counters"] if c["metric"] == metric}


@pytest.mark.parametrize(
    "stem, counters",
    [
        ("claude-code-2.1.197-subagent-grpc", {"claude_code.token.usage": "type", "claude_code.cost.usage": None}),
        ("gemini-cli-0.61.0-three-turn-grpc", {"gemini_cli.token.usage": "type"}),
        ("codex-0.171.0-three-turn-grpc", {"codex.turn.token_usage": "token_type"}),
    ],
)
def test_an_agents_own_counters_are_its_totals(server, tmp_path, stem, counters):
    case = replayed(stem, server, tmp_path)
    totals = _trace(server, case.recording.trial, case.recording.job)["totals"]
    assert totals["provenance"] == "measured" and totals["value"]["final_metrics"] == []
    assert {c["metric"] for c in totals["value"]["counters"]} == set(counters)
    for metric, type_key in counters.items():
        recorded = _recorded(stem, metric, type_key)
        assert recorded and _served(totals, metric) == pytest.approx(recorded)


def test_claude_code_cost_counter_matches_what_it_reported(server, tmp_path):
    case = replayed("claude-code-2.1.197-subagent-grpc", server, tmp_path)
    totals = _trace(server, case.recording.trial, case.recording.job)["totals"]
    cost = sum(_served(totals, "claude_code.cost.usage").values())
    assert case.recording.reported_cost_usd is None or cost == pytest.approx(case.recording.reported_cost_usd)
    assert {c["unit"] for c in totals["value"]["counters"]} == {"tokens", "USD"}


def test_harbor_trajectories_final_metrics_verbatim_main_and_sub_agent(server, unique, tmp_path, capsys):
    job = f"totals-{unique}"
    trial_dir, harbor = import_job(capsys, server, tmp_path / "src", job, "hello-world__subagent")
    [sub] = harbor.subagent_trajectories

    totals = _trace(server, trial_dir.name, job)["totals"]
    assert totals["provenance"] == "measured" and totals["value"]["counters"] == []
    assert sorted(totals["value"]["final_metrics"], key=lambda f: f["agent"]) == [
        {
            "agent": harbor.agent.name,
            "trajectory_id": harbor.trajectory_id,
            "final_metrics": harbor.final_metrics.model_dump(mode="json", exclude_none=True),
        },
        {
            "agent": sub.agent.name,
            "trajectory_id": sub.trajectory_id,
            "final_metrics": sub.final_metrics.model_dump(mode="json", exclude_none=True),
        },
    ]

    code, out, err = run(capsys, "trace", trial_dir.name, "--job", job, "--server", server.http_url)
    assert code == 0, err
    assert "total_prompt_tokens 4100" in out and "total_prompt_tokens 300" in out


def test_a_trajectory_without_final_metrics_has_no_totals_with_the_reason(server, unique, tmp_path, capsys):
    job = f"no-totals-{unique}"
    source = write_job(tmp_path / "src", job)
    trial_dir = next(p for p in source.iterdir() if p.name.startswith("hello-world__solved"))
    path = trial_dir / "agent" / "trajectory.json"
    harbor = Trajectory.model_validate_json(path.read_text())
    path.write_text(json.dumps(harbor.model_copy(update={"final_metrics": None}).to_json_dict()))
    assert Trajectory.model_validate_json(path.read_text()).final_metrics is None  # still valid for Harbor
    assert run(capsys, "import", "harbor", str(source), "--server", server.http_url)[0] == 0

    assert _trace(server, trial_dir.name, job)["totals"] == {
        "value": None,
        "provenance": "unavailable",
        "note": NONE_SENT,
    }
    code, out, err = run(capsys, "trace", trial_dir.name, "--job", job, "--server", server.http_url)
    assert code == 0, err
    assert "no totals" in out
