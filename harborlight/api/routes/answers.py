"""Derived answers kept in memory until what they were derived from changes: each is derived once per
generation of its rows, then answered as derived.

A job's answers (its trials' facts, its row, its reports) follow its stored trial rows. One trial's answers (its
behaviour, trace, time split, calls) follow its stored rows (the keeper writes them at the version it resolved
the trial's events at) and every commit (the raw tables' row counts: metrics the producer totalled, a decision
of no trial, are records no trial's version follows)."""

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable

from clickhouse_connect.driver.client import Client
from fastapi.responses import JSONResponse, Response
from pydantic import BaseModel

from harborlight.read.statements.stored_trials import job_generation, trial_generation

MAX_ANSWERS = 64  # answers kept, the least recently asked go first
_answers: OrderedDict[Hashable, object] = OrderedDict()
_lock = threading.Lock()


def _kept[T](key: Hashable, derive: Callable[[], T]) -> T:
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


def job_answer[T](client: Client, tenant: str, job: str, what: Hashable, derive: Callable[[], T]) -> T:
    """`derive()` for `what` of `job`, or what it gave for the job's current stored rows."""
    return _kept(("job", id(client), tenant, job, what, job_generation(client, tenant, job)), derive)


def trial_answer[T](client: Client, tenant: str, trial: str, what: Hashable, derive: Callable[[], T]) -> T:
    """`derive()` for `what` of the trial named `trial` (`what` carries the job and every other parameter the
    answer depends on), or what it gave for the trial's current stored rows and commits."""
    return _kept(("trial", id(client), tenant, trial, what, trial_generation(client, tenant, trial)), derive)


def _body(value: object) -> bytes:
    """A JSON answer's bytes: a Pydantic model as FastAPI writes its response model, else as JSONResponse does."""
    if isinstance(value, BaseModel):
        return value.model_dump_json(by_alias=True).encode()
    return bytes(JSONResponse(value).body)


def job_json(client: Client, tenant: str, job: str, what: Hashable, derive: Callable[[], object]) -> Response:
    """The JSON `derive()` answers for `what` of `job`, kept as job_answer keeps answers (as bytes)."""
    body = job_answer(client, tenant, job, what, lambda: _body(derive()))
    return Response(body, media_type="application/json")


def trial_json(client: Client, tenant: str, trial: str, what: Hashable, derive: Callable[[], object]) -> Response:
    """The JSON `derive()` answers for `what` of the trial, kept as trial_answer keeps answers (as bytes)."""
    body = trial_answer(client, tenant, trial, what, lambda: _body(derive()))
    return Response(body, media_type="application/json")
