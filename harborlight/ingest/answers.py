"""The JSON answers of the receivers' HTTP routes, as OpenAPI shows them: OTLP's Export responses in the
OTLP/JSON encoding (what `json_format.MessageToJson` writes for an `application/json` request) and the
MLflow experiment routes' answers. The routes build their answers from the protobuf messages and the MLflow
shapes; these models only name them for /openapi.json (a field they do not name is not in the schema)."""

from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field


class _Answer(BaseModel):
    model_config = ConfigDict(extra="forbid")


# proto3's JSON mapping writes an int64 as a decimal string
Int64 = Annotated[str, Field(pattern=r"^-?[0-9]+$", description="an int64, written as a decimal string")]
_PARTIAL = (
    "set only when the receiver rejected part of the request: how many items, and why; an answer without it "
    "means every item was taken"
)


class ExportTracePartialSuccess(_Answer):
    rejectedSpans: Int64 | None = None
    errorMessage: str | None = None


class ExportTraceServiceResponse(_Answer):
    """OTLP's answer to POST /v1/traces (opentelemetry.proto.collector.trace.v1), in OTLP/JSON."""

    partialSuccess: ExportTracePartialSuccess | None = Field(None, description=_PARTIAL)


class ExportLogsPartialSuccess(_Answer):
    rejectedLogRecords: Int64 | None = None
    errorMessage: str | None = None


class ExportLogsServiceResponse(_Answer):
    """OTLP's answer to POST /v1/logs (opentelemetry.proto.collector.logs.v1), in OTLP/JSON."""

    partialSuccess: ExportLogsPartialSuccess | None = Field(None, description=_PARTIAL)


class ExportMetricsPartialSuccess(_Answer):
    rejectedDataPoints: Int64 | None = None
    errorMessage: str | None = None


class ExportMetricsServiceResponse(_Answer):
    """OTLP's answer to POST /v1/metrics (opentelemetry.proto.collector.metrics.v1), in OTLP/JSON."""

    partialSuccess: ExportMetricsPartialSuccess | None = Field(None, description=_PARTIAL)


class RpcStatus(_Answer):
    """A refused export (google.rpc.Status, in OTLP/JSON): the gRPC code, why, and a RetryInfo in `details`
    when the client should retry after a delay (also the Retry-After header)."""

    code: int | None = None
    message: str | None = None
    details: list[dict[str, object]] | None = None


class MlflowExperiment(_Answer):
    experiment_id: str = Field(description="the job's name, URL-encoded (an experiment is a job)")
    name: str = Field(description="the job's name")
    lifecycle_stage: str


class MlflowSearchAnswer(_Answer):
    """The experiment named by the filter `name = '<job>'`: every job has one."""

    experiments: list[MlflowExperiment]


class MlflowCreateAnswer(_Answer):
    experiment_id: str = Field(description="the job's name, URL-encoded")


class MlflowError(_Answer):
    """MLflow's error shape, so its clients print the message."""

    error_code: str
    message: str
