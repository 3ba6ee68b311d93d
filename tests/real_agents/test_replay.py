"""The recorded telemetry of real agents (fixtures/), imported with `harborlight import otlp`, is read
right: every answer matches what the fake provider served in that run. Runs without the agents installed.

The fixtures are the agents' own requests as harborlight received them (tests/real_agents/record.py).
"""

import pytest

from tests.real_agents.cases import replayed
from tests.real_agents.checks import ASPECTS, check
from tests.real_agents.faults import mark_known_fault
from tests.real_agents.recordings import stems

# Every episode as sent over gRPC, and the three-turn one over HTTP too (every fixture stays for its diff);
# opencode's, which exports over HTTP only, all.
REPLAYED = [stem for stem in stems() if "-grpc" in stem or "-three-turn-http" in stem or stem.startswith("opencode-")]


@pytest.fixture(scope="module", params=REPLAYED)
def case(request, server, tmp_path_factory):
    return replayed(request.param, server, tmp_path_factory.mktemp("replay"))


@pytest.mark.parametrize("aspect", ASPECTS)
def test_a_replayed_run_is_read_as_the_agent_ran_it(case, aspect, request):
    mark_known_fault(request, case, aspect)
    check(aspect, case)
