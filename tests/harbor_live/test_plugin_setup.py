"""How Harbor finds and builds the plugin: `--plugin harborlight` resolves through the installed
entry point (Harbor's own resolver), its kwargs come as Harbor's CLI parses them, and the endpoint
falls back to the OpenTelemetry exporter's variables."""

import pytest
from harbor.cli.job_plugins import plugin_configs_from_cli
from harbor.cli.plugin_registry import resolve_plugin_import_path
from harbor.utils.import_path import import_class

from importers.harbor_plugin import HarborlightPlugin, endpoints
from storage import Signal


def test_harbor_resolves_plugin_harborlight_to_the_plugin():
    assert import_class(resolve_plugin_import_path("harborlight"), label="plugin") is HarborlightPlugin


def test_the_cli_kwargs_build_it():
    (config,) = plugin_configs_from_cli(["harborlight"], ["endpoint=http://10.0.0.5:4318", "token=s3cret"])
    plugin = HarborlightPlugin(**config.kwargs)
    assert plugin._urls == {Signal.traces: "http://10.0.0.5:4318/v1/traces", Signal.logs: "http://10.0.0.5:4318/v1/logs"}
    assert plugin._client.headers["authorization"] == "Bearer s3cret"


def test_the_exporters_variables_are_the_fallback(monkeypatch):
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "http://collector:4318/")
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "http://traces-only:4318/v1/traces")
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_HEADERS", "Authorization=Bearer%20tok,x-team=evals")
    plugin = HarborlightPlugin()
    assert plugin._urls == {Signal.traces: "http://traces-only:4318/v1/traces", Signal.logs: "http://collector:4318/v1/logs"}
    assert (plugin._client.headers["authorization"], plugin._client.headers["x-team"]) == ("Bearer tok", "evals")


def test_no_endpoint_is_one_line_naming_both_ways(monkeypatch):
    for name in ("OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "OTEL_EXPORTER_OTLP_LOGS_ENDPOINT"):
        monkeypatch.delenv(name, raising=False)
    with pytest.raises(ValueError, match="endpoint=http://HOST:4318 or set OTEL_EXPORTER_OTLP_ENDPOINT"):
        endpoints(None, {})
