"""`build_api`: the one FastAPI app of the query API, for `harborlight serve` (with the OTLP receivers) and for
the CLI reading a store in its own process (harborlight/cli/api_access.py): same routes, same answers."""

from fastapi import APIRouter, FastAPI
from fastapi_offline import FastAPIOffline

from harborlight.api import errors
from harborlight.api.deps import Services
from harborlight.api.router import api_router


def build_api(services: Services, *front: APIRouter) -> FastAPI:
    """The app: `front` routers first (the OTLP/HTTP receivers), then every /api route, /healthz and /metrics,
    the error map installed and `services` given to the routes."""
    # The API's reference pages load Swagger UI and ReDoc from the package, not a CDN: they work offline.
    app = FastAPIOffline(title="harborlight", summary="OTLP in, agent behaviour out", version="0.1.0")
    app.state.services = services
    errors.install(app)
    for router in front:
        app.include_router(router)
    app.include_router(api_router())
    return app
