"""How Harbor finds and builds the plugin: `--plugin harborlight` resolves through the installed
entry point (Harbor's own resolver), its kwargs come as Harbor's CLI parses them, and the endpoint,
protocol, headers and deadline fall back to the OpenTelemetry exporter's variables as the SDK
configuration spec reads them."""

import gc
import warnings

import pytest
from harbor.cli.job_plugins import plugin_configs_from_cli
from harbor.cli.plugin_registry import resolve_plugin_import_path
from harbor.utils.import_path import import_class

from harborlight.harbor.plugin import HarborlightPlugin, endpoints
from harborlight.harbor.sender import GRPC, HTTP, targets
from harborlight.store import Signal

_VARIABLES = [
    f"OTEL_EXPORTER_OTLP_{signal}{name}"
    for signal in ("", "TRACES_", "LOGS_")
    for name in ("ENDPOINT", "PROTOCOL", "HEADERS", "TIMEOUT", "COMPRESSION", "INSECURE")
]


@pytest.fixture(autouse=True)
def _no_exporter_variables(monkeypatch):
    for name in _VARIABLES:
        monkeypatch.delenv(name, raising=False)


def test_harbor_resolves_plugin_harborlight_to_the_plugin():
    assert import_class(resolve_plugin_import_path("harborlight"), label="plugin") is HarborlightPlugin


def test_the_cli_kwargs_build_it():
    (config,) = plugin_configs_from_cli(
        ["harborlight"], ["endpoint=http://10.0.0.5:4318", "token=s3cret", "timeout=2.5", "end_timeout=7"]
    )
    plugin = HarborlightPlugin(**config.kwargs)
    assert plugin._urls == {
        Signal.traces: "http://10.0.0.5:4318/v1/traces",
        Signal.logs: "http://10.0.0.5:4318/v1/logs",
    }
    target = plugin._targets[Signal.traces]
    assert (target.protocol, dict(target.headers), target.timeout) == (HTTP, {"authorization": "Bearer s3cret"}, 2.5)
    assert plugin._end_timeout == 7


def test_a_grpc_endpoint_given_to_the_plugin(monkeypatch):
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_PROTOCOL", "http/protobuf")  # the kwargs outrank the variables
    (config,) = plugin_configs_from_cli(["harborlight"], ["endpoint=http://10.0.0.5:4317", "protocol=grpc"])
    plugin = HarborlightPlugin(**config.kwargs)
    assert {t.protocol for t in plugin._targets.values()} == {GRPC}
    assert plugin._urls == {Signal.traces: "10.0.0.5:4317", Signal.logs: "10.0.0.5:4317"}
    with pytest.raises(ValueError, match="protocol='http/json' is not a protocol it speaks"):
        HarborlightPlugin(endpoint="http://10.0.0.5:4318", protocol="http/json")


def test_the_exporters_variables_are_the_fallback(monkeypatch):
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "http://collector:4318/")
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "http://traces-only:4318/v1/traces")
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_HEADERS", "Authorization=Bearer%20tok,x-team=evals")
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_LOGS_HEADERS", "x-team=logs")
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_TIMEOUT", "2500")  # milliseconds, as the spec has it
    plugin = HarborlightPlugin()
    assert plugin._urls == {
        Signal.traces: "http://traces-only:4318/v1/traces",
        Signal.logs: "http://collector:4318/v1/logs",
    }
    traces, logs = plugin._targets[Signal.traces], plugin._targets[Signal.logs]
    assert dict(traces.headers) == {"authorization": "Bearer tok", "x-team": "evals"}
    assert dict(logs.headers) == {"authorization": "Bearer tok", "x-team": "logs"}
    assert traces.timeout == logs.timeout == 2.5 and traces.protocol == logs.protocol == HTTP


def test_the_exporters_protocol_variables(monkeypatch):
    """OTEL_EXPORTER_OTLP_PROTOCOL=grpc (what the README sets for the agents) sends OTLP/gRPC to the
    endpoint's host:port (no path added), TLS unless its scheme is http; a signal's own variable wins."""
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:4317")
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_PROTOCOL", "grpc")
    chosen = targets(None, None, None, None, __import__("os").environ.copy())
    assert {s: (t.protocol, t.endpoint, t.insecure) for s, t in chosen.items()} == {
        Signal.traces: (GRPC, "127.0.0.1:4317", True),
        Signal.logs: (GRPC, "127.0.0.1:4317", True),
    }
    environ = {
        "OTEL_EXPORTER_OTLP_ENDPOINT": "https://collector:4317",
        "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc",
        "OTEL_EXPORTER_OTLP_LOGS_PROTOCOL": "http/protobuf",
        "OTEL_EXPORTER_OTLP_LOGS_ENDPOINT": "http://collector:4318/v1/logs",
        "OTEL_EXPORTER_OTLP_COMPRESSION": "gzip",
    }
    chosen = targets(None, None, None, None, environ)
    assert (chosen[Signal.traces].protocol, chosen[Signal.traces].endpoint, chosen[Signal.traces].insecure) == (
        GRPC,
        "collector:4317",
        False,
    )
    assert (chosen[Signal.logs].protocol, chosen[Signal.logs].endpoint) == (HTTP, "http://collector:4318/v1/logs")
    assert chosen[Signal.traces].gzip and chosen[Signal.logs].gzip
    # no scheme: TLS unless OTEL_EXPORTER_OTLP_INSECURE=true
    bare = {"OTEL_EXPORTER_OTLP_ENDPOINT": "collector:4317", "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"}
    assert not targets(None, None, None, None, bare)[Signal.traces].insecure
    assert targets(None, None, None, None, {**bare, "OTEL_EXPORTER_OTLP_INSECURE": "true"})[Signal.traces].insecure


def test_an_unknown_protocol_variable_is_a_warning_and_http(caplog):
    environ = {"OTEL_EXPORTER_OTLP_ENDPOINT": "http://collector:4318", "OTEL_EXPORTER_OTLP_PROTOCOL": "http/json"}
    assert {t.protocol for t in targets(None, None, None, None, environ).values()} == {HTTP}
    assert "'http/json' is not a protocol it speaks" in caplog.text


def test_no_endpoint_is_one_line_naming_both_ways():
    with pytest.raises(ValueError, match="endpoint=http://HOST:4318 or set OTEL_EXPORTER_OTLP_ENDPOINT"):
        endpoints(None, {})


def test_a_plugin_whose_job_never_starts_leaves_nothing_open():
    """Harbor builds the plugins a job names before the job starts; a job that never starts never calls
    on_job_start, and its plugin, dropped, leaves no event loop or socket open (a ResourceWarning)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", ResourceWarning)
        HarborlightPlugin(endpoint="http://10.0.0.5:4318")
        gc.collect()
    assert [str(w.message) for w in caught if issubclass(w.category, ResourceWarning)] == []
