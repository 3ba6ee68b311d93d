"""Shared fixtures. chDB allows one data directory per process, so in-process servers share one
session-wide store; tests keep apart by the job / service names they send."""

import os
import uuid

import pytest

# harbor and agentcompass import litellm, which otherwise fetches a model cost map from the network
# (refused here) and logs a warning to stderr from a background thread, into whichever test runs then.
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
# Harbor posts usage telemetry from a detached `python -c` helper it does not wait for: the tests send none,
# and a Popen dropped while it runs is a ResourceWarning (an error here) in whichever test runs then.
os.environ.setdefault("HARBOR_TELEMETRY", "0")
# pytest-xdist's workers inherit COLUMNS=80 and LINES=24 from their launcher, and the CLI's tables honour
# COLUMNS: the tests read the CLI's answers as piped output is (harborlight/cli/render.py), whoever runs them.
for _name in ("COLUMNS", "LINES"):
    os.environ.pop(_name, None)

import httpx  # noqa: E402 (after the environment above)

from harborlight.settings import Settings  # noqa: E402

# httpx gives up after 5 s unless told otherwise; on a loaded machine a commit or a first read may take
# longer. A test that wants a bound passes its own timeout; every other wait is patient, so load makes the
# suite slower, never red.
PATIENT_SECONDS = 300


def _patient(call):
    def patient(*args, timeout=PATIENT_SECONDS, **kwargs):
        return call(*args, timeout=timeout, **kwargs)

    return patient


for _call in ("request", "get", "post", "put", "delete", "stream"):
    setattr(httpx, _call, _patient(getattr(httpx, _call)))
for _client in (httpx.Client, httpx.AsyncClient):
    _client.__init__ = _patient(_client.__init__)


@pytest.fixture(scope="session")
def store_dir(tmp_path_factory):
    return tmp_path_factory.mktemp("store")


@pytest.fixture(scope="session")
def server(store_dir):
    """A running in-process harborlight on the session store."""
    # imported here, not at the top: the server brings the engine (chDB), which the unit tier never loads
    from tests.support.servers import InProcessServer

    srv = InProcessServer(Settings(data_dir=store_dir)).start()
    yield srv
    srv.stop()


@pytest.fixture
def unique() -> str:
    """A name no other test uses, for services, jobs and trials."""
    return uuid.uuid4().hex[:12]
