"""`harborlight serve` on an empty directory makes a new store without a warning: the catch-up steps an
older store needs (counting its trials' events, taking its events' names, the trace-id index) run over no
rows there, so they say nothing (an INFO line, below the default level). Started again, nothing either."""

import gc
import warnings

from tests.support.servers import SubprocessServer


def _start_and_stop(data_dir) -> str:
    """What the server wrote; a stopped server leaves no pipe open (a ResourceWarning, an error in the tests)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", ResourceWarning)
        srv = SubprocessServer(data_dir).start(timeout=300)
        srv.stop(timeout=120)
        output, srv = srv.output, None
        gc.collect()
    assert [str(w.message) for w in caught if issubclass(w.category, ResourceWarning)] == []
    return output


def test_a_first_start_on_an_empty_store_warns_of_nothing(tmp_path):
    first = _start_and_stop(tmp_path / "store")
    assert "WARNING" not in first and "ERROR" not in first, first
    assert "harborlight: OTLP/gRPC on" in first, first  # it did start
    again = _start_and_stop(tmp_path / "store")
    assert "WARNING" not in again and "ERROR" not in again, again
