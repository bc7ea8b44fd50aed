"""The base of every error a service raises for a client to read: the API and the sockets turn it into
{"error": message, "code": code, ...} without knowing which app raised it."""

from __future__ import annotations

import logging
import sys

import redis
from django.db import InterfaceError, OperationalError

# What an outage of the database or Redis raises (a request fails whole, since every write is one
# transaction): clients are told to try again (HTTP 503, a socket `reject` or close 3503), not a 500.
OUTAGES: tuple[type[BaseException], ...] = (OperationalError, InterfaceError, redis.ConnectionError, redis.TimeoutError)


def log_background_failure(logger: logging.Logger, message: str, *args: object) -> None:
    """Log the exception a background task is handling: an outage as a WARNING without a traceback (it
    comes with every try while the outage lasts, and says nothing new), anything else as an ERROR with it."""
    error = sys.exc_info()[1]
    if isinstance(error, OUTAGES):
        logger.warning(message + " (outage: %r)", *args, error)
    else:
        logger.exception(message, *args)


class ServiceError(Exception):
    """A request a service refuses. `message` is for people, `code` for programs, `status` the HTTP answer.

    Subclasses set `code` and `status` as class attributes; a one-off refusal may pass them instead.
    """

    code = "invalid"
    status = 400

    def __init__(
        self,
        message: str,
        *,
        code: str | None = None,
        status: int | None = None,
        index: int | None = None,
        suggestion: str | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        if code is not None:
            self.code = code
        if status is not None:
            self.status = status
        self.index = index
        self.suggestion = suggestion
