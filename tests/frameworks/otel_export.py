"""The plain OpenTelemetry SDK set up to export a driver's traces and logs over OTLP/HTTP, for the framework
drivers (*_run.py) only: it imports the SDK, which each framework's venv has and the test venv need not.

The resource is `service.name` plus OTEL_RESOURCE_ATTRIBUTES (harbor.job.name, harbor.trial.name), as the
SDK reads it.
"""

from opentelemetry import trace
from opentelemetry._logs import set_logger_provider
from opentelemetry.exporter.otlp.proto.http._log_exporter import OTLPLogExporter
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk._logs import LoggerProvider
from opentelemetry.sdk._logs.export import BatchLogRecordProcessor
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor


class Telemetry:
    def __init__(self, otlp_endpoint: str, service: str) -> None:
        resource = Resource.create({"service.name": service})
        self.traces = TracerProvider(resource=resource)
        self.traces.add_span_processor(BatchSpanProcessor(OTLPSpanExporter(endpoint=f"{otlp_endpoint}/v1/traces")))
        trace.set_tracer_provider(self.traces)
        self.logs = LoggerProvider(resource=resource)
        self.logs.add_log_record_processor(
            BatchLogRecordProcessor(OTLPLogExporter(endpoint=f"{otlp_endpoint}/v1/logs"))
        )
        set_logger_provider(self.logs)

    def shutdown(self) -> None:
        """Flushes and stops both exporters (the process exits right after)."""
        self.traces.shutdown()
        self.logs.shutdown()
