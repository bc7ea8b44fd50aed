"""The base of every error a service raises for a client to read: the API and the sockets turn it into
{"error": message, "code": code, ...} without knowing which app raised it."""

from __future__ import annotations


class ServiceError(Exception):
    """A request a service refuses. `message` is for people, `code` for programs, `status` the HTTP answer.

    Subclasses set `code` and `status` as class attributes; a one-off refusal may pass them instead.
    """

    code = "invalid"
    status = 400

    def __init__(
        self, message: str, *, code: str | None = None, status: int | None = None, index: int | None = None
    ) -> None:
        super().__init__(message)
        self.message = message
        if code is not None:
            self.code = code
        if status is not None:
            self.status = status
        self.index = index
