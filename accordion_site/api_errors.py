"""One JSON error shape for the whole API: {"error": message, "code": code, ...}, always logged."""

from __future__ import annotations

import logging
import math
from typing import Any

from django.core.exceptions import PermissionDenied, RequestDataTooBig
from django.http import Http404
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from rest_framework import exceptions, serializers, status
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler

from .errors import ServiceError
from .languages import local_number

logger = logging.getLogger("accordion_site.api")


class ErrorSerializer(serializers.Serializer):
    error = serializers.CharField(help_text="What went wrong, for people.")
    code = serializers.CharField(help_text="What went wrong, for programs: see docs/api.md.")
    index = serializers.IntegerField(required=False, help_text="For illegal_move: the first bad move's index.")
    suggestion = serializers.CharField(
        required=False, help_text="For deal_code_typo: the shared code the typed one most likely meant."
    )


def refusals(*statuses: int) -> dict[int, type[ErrorSerializer]]:
    """The error answers an operation can give, for the schema: all share the one error shape."""
    return dict.fromkeys(statuses, ErrorSerializer)


class PayloadTooLarge(exceptions.APIException):
    status_code = status.HTTP_413_REQUEST_ENTITY_TOO_LARGE
    default_detail = gettext_lazy("the request body is too large")
    default_code = "too_large"


class Throttled(exceptions.Throttled):
    """A refusal by one allowance that says which: "too many new games: try again in 42 seconds"."""

    def __init__(self, wait: float | None, *, what: str) -> None:
        super().__init__(wait)
        self.what = what


def _first_message(detail: Any) -> str:
    if isinstance(detail, dict):
        field, value = next(iter(detail.items()))
        return f"{field}: {_first_message(value)}" if field != "non_field_errors" else _first_message(value)
    if isinstance(detail, list) and detail:
        return _first_message(detail[0])
    return str(detail)


def _code_and_message(error: exceptions.APIException) -> tuple[str, str]:
    if isinstance(error, exceptions.ValidationError):
        return "invalid", _first_message(error.detail)
    if isinstance(error, exceptions.Throttled):
        # DRF's own words ("Request was throttled. Expected available in 42 seconds.") in our shape.
        seconds: float | None = error.wait  # type: ignore[attr-defined]  # set by Throttled, missing from the stubs
        if isinstance(error, Throttled) and seconds is not None:
            return "rate_limited", _("%(what)s: try again in %(seconds)s seconds") % {
                "what": error.what,
                "seconds": local_number(math.ceil(seconds)),
            }
        if seconds is None:
            return "rate_limited", _("too many requests: try again later")
        return "rate_limited", _("too many requests: try again in %(seconds)s seconds") % {
            "seconds": local_number(math.ceil(seconds))
        }
    return error.default_code, _first_message(error.detail)


def _error_body(
    where: str, *, code: str, message: str, index: int | None = None, suggestion: str | None = None
) -> dict[str, Any]:
    logger.warning("%s refused (%s): %s", where, code, message)
    body: dict[str, Any] = {"error": message, "code": code}
    if index is not None:
        body["index"] = index
    if suggestion is not None:
        body["suggestion"] = suggestion
    return ErrorSerializer(body).data  # type: ignore[no-any-return]


def exception_handler(error: Exception, context: dict[str, Any]) -> Response | None:
    request = context.get("request")
    where = f"{request.method} {request.path}" if request is not None else "?"
    if isinstance(error, ServiceError):
        body = _error_body(
            where, code=error.code, message=error.message, index=error.index, suggestion=error.suggestion
        )
        refusal = Response(body, status=error.status)
        # Logged above as the refusal it is ("busy", "unavailable"): not again by Django as a server error.
        refusal._has_been_logged = True  # type: ignore[attr-defined]
        return refusal
    if isinstance(error, RequestDataTooBig):
        # Django refuses to read a body over DATA_UPLOAD_MAX_MEMORY_SIZE (a finish needs about 1 KB).
        error = PayloadTooLarge()
    elif isinstance(error, Http404):
        error = exceptions.NotFound()
    elif isinstance(error, PermissionDenied):
        error = exceptions.PermissionDenied()
    if not isinstance(error, exceptions.APIException):
        return None  # a bug, not a refusal: Django answers 500 and logs the traceback
    # DRF's response keeps the headers worth keeping: Retry-After on a 429, WWW-Authenticate on a 401.
    response = drf_exception_handler(error, context)
    if response is not None:
        code, message = _code_and_message(error)
        response.data = _error_body(where, code=code, message=message)
    return response
