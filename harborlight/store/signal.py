"""The three OTLP signals, each with its export request and its tables."""

from enum import StrEnum


class Signal(StrEnum):
    traces = "traces"
    logs = "logs"
    metrics = "metrics"
