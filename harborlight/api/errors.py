"""The one place where the API's refusals become HTTP answers: one exception type per meaning, each with its
status, mapped once (`install`) to `{"detail": message}`. Routes raise these, never HTTPException.

A transfer's refusal (harborlight/transfer/errors.py) and a request body the ingest limits refuse
(harborlight/ingest/errors.py) keep the status their own modules give them."""

from typing import ClassVar

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse

from harborlight.ingest.errors import http_status
from harborlight.write_errors import IngestError


class ApiError(Exception):
    """A request the API cannot answer; the message says what to pass instead."""

    status: ClassVar[int] = 500
    headers: ClassVar[dict[str, str]] = {}


class BadRequest(ApiError):
    """A parameter is wrong (not a kind, out of range, a name in several jobs without `job=`)."""

    status = 400


class Unauthenticated(ApiError):
    """No token, or one this server does not know."""

    status = 401
    headers = {"WWW-Authenticate": "Bearer"}


class Forbidden(ApiError):
    """A tenant's token asking for what covers every tenant (/metrics)."""

    status = 403


class NotFound(ApiError):
    """No job, trial or events of that name for the caller."""

    status = 404


class TooLarge(ApiError):
    """An uploaded file inflates past what this server takes."""

    status = 413


class TooDeep(ApiError):
    """The stored data nests deeper than the answer can be built (sub-agents, JSON values)."""

    status = 422


class NotAvailable(ApiError):
    """This process does not serve that (import and export on a read-only store, health without a writer)."""

    status = 503


def refused(exc: ValueError) -> ApiError:
    """A transfer's refusal (a ValueError) as the API's: an unknown job or trial, a file too large, else a bad
    request."""
    if isinstance(exc, LookupError):
        return NotFound(str(exc))
    return TooLarge(str(exc)) if getattr(exc, "http_status", None) == TooLarge.status else BadRequest(str(exc))


def _answer(status: int, message: str, headers: dict[str, str]) -> JSONResponse:
    return JSONResponse({"detail": message}, status_code=status, headers=headers or None)


async def _api_error(_: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, ApiError)
    return _answer(exc.status, str(exc), exc.headers)


async def _ingest_error(_: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, IngestError)
    retry = {"Retry-After": str(exc.retry_after)} if exc.retry_after is not None else {}
    return _answer(http_status(exc), str(exc), retry)


def install(app: FastAPI) -> None:
    """Every refusal of the API answered as its type says."""
    app.add_exception_handler(ApiError, _api_error)
    app.add_exception_handler(IngestError, _ingest_error)
