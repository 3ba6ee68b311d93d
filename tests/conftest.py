"""Shared fixtures. chDB allows one data directory per process, so in-process servers share one
session-wide store; tests keep apart by the job / service names they send."""

import os
import uuid

import pytest

# harbor and agentcompass import litellm, which otherwise fetches a model cost map from the network
# (refused here) and logs a warning to stderr from a background thread, into whichever test runs then.
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
# pytest-xdist's workers inherit COLUMNS=80 and LINES=24 from their launcher, and the CLI's tables honour
# COLUMNS: the tests read the CLI's answers as piped output is (harborlight/render.py), whoever runs them.
for _name in ("COLUMNS", "LINES"):
    os.environ.pop(_name, None)

from harborlight.settings import Settings
from tests.support.servers import InProcessServer


@pytest.fixture(scope="session")
def store_dir(tmp_path_factory):
    return tmp_path_factory.mktemp("store")


@pytest.fixture(scope="session")
def server(store_dir):
    """A running in-process harborlight on the session store."""
    srv = InProcessServer(Settings(data_dir=store_dir)).start()
    yield srv
    srv.stop()


@pytest.fixture
def unique() -> str:
    """A name no other test uses, for services, jobs and trials."""
    return uuid.uuid4().hex[:12]
