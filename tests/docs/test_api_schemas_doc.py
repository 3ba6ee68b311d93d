"""docs/api.md names, for every JSON route of the query API, the schema OpenAPI gives its answer, and lists
every status of the API's error map (harborlight/api/errors.py): a route, a model or a refusal added or
renamed without the reference fails here."""

import re
from pathlib import Path

from harborlight.api import errors
from harborlight.api.build import build_api
from harborlight.api.deps import Services

API_MD = Path(__file__).resolve().parents[2] / "docs" / "api.md"
RECEIVERS = ("/v1/", "/api/2.0/mlflow/")  # OTLP's and MLflow's own answers (harborlight/ingest/)
_ROW = re.compile(r"^\| `(GET|POST) ([^`]+)` \| `(\w+)`", re.M)


def _schema_names() -> dict[str, str]:
    """`METHOD /path` -> the name of its 200 JSON answer's schema ($ref'd model, or an inline schema's title)."""
    document = build_api(Services(store=None, authenticate=lambda _: "")).openapi()  # type: ignore[arg-type]
    names = {}
    for path, operations in document["paths"].items():
        for method, operation in operations.items():
            schema = operation["responses"].get("200", {}).get("content", {}).get("application/json", {}).get("schema")
            if schema and not path.startswith(RECEIVERS):
                names[f"{method.upper()} {path}"] = schema.get("$ref", "").rsplit("/", 1)[-1] or schema.get("title")
    return names


def test_every_json_route_and_its_schema_is_in_the_api_reference():
    shown = {f"{method} {path}": name for method, path, name in _ROW.findall(API_MD.read_text())}
    assert shown == _schema_names()


def test_every_refusal_status_is_in_the_api_reference():
    text = API_MD.read_text().split("**Refusals.**", 1)[1].split("\n\n", 2)[1]
    listed = {int(status) for status in re.findall(r"^\| (\d{3}) \|", text, re.M)}
    statuses = {
        kind.status
        for kind in vars(errors).values()
        if isinstance(kind, type) and issubclass(kind, errors.ApiError) and kind is not errors.ApiError
    }
    assert listed == statuses
