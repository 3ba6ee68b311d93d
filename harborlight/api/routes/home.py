"""GET /: what someone who opens the server's address in a browser needs first (no data, no token)."""

from fastapi import APIRouter
from fastapi.responses import HTMLResponse

_PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>harborlight</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:46rem;margin:3rem auto;padding:0 1rem}
code,pre{background:#f4f4f4;padding:.1rem .3rem}pre{padding:.6rem}</style></head>
<body><h1>harborlight</h1>
<p>OpenTelemetry in, agent behaviour out. This server takes OTLP on <code>/v1/traces</code>,
<code>/v1/logs</code>, <code>/v1/metrics</code> (and OTLP/gRPC on its gRPC port) and answers under
<code>/api/</code>.</p>
<ul>
<li><a href="/docs">/docs</a>: the API's reference (Swagger UI)</li>
<li><a href="/redoc">/redoc</a>: the same reference, as one page</li>
<li><a href="/openapi.json">/openapi.json</a>: the OpenAPI document</li>
<li><a href="/healthz">/healthz</a>: whether the server and its store are well</li>
</ul>
<p>From a terminal:</p>
<pre>harborlight jobs                 # every job: solve rates, pass@k, tokens, cost
harborlight trial TRIAL          # how one trial ended, where its time went
harborlight report JOB           # the job's report (--format html for a page to share)
harborlight import harbor JOBDIR # a Harbor job directory into the store</pre>
</body></html>
"""


def home_router() -> APIRouter:
    router = APIRouter()

    @router.get("/", include_in_schema=False)
    def home() -> HTMLResponse:
        return HTMLResponse(_PAGE)

    return router
