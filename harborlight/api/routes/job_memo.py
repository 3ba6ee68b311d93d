"""A job's derived answers (its trials' facts, its row, its reports) kept in memory until its stored trial
rows change: each is derived once per generation of those rows, then answered as derived."""

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable

from clickhouse_connect.driver.client import Client

from harborlight.read.statements.stored_trials import job_generation

MAX_ANSWERS = 64  # jobs x kinds of answer kept, the least recently asked go first
_answers: OrderedDict[Hashable, object] = OrderedDict()
_lock = threading.Lock()


def job_answer[T](client: Client, tenant: str, job: str, what: Hashable, derive: Callable[[], T]) -> T:
    """`derive()` for `what` of `job`, or what it gave for the job's current stored rows."""
    key = (id(client), tenant, job, what, job_generation(client, tenant, job))
    with _lock:
        if key in _answers:
            _answers.move_to_end(key)
            return _answers[key]  # type: ignore[return-value]
    value = derive()
    with _lock:
        _answers[key] = value
        while len(_answers) > MAX_ANSWERS:
            _answers.popitem(last=False)
    return value
