"""One JSON error shape for the whole API: {"error": message, "code": code, ...}, always logged."""

from __future__ import annotations

import logging
from typing import Any

from django.core.exceptions import RequestDataTooBig
from rest_framework import exceptions, status
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler

from .errors import GameError

logger = logging.getLogger("games.api")


class PayloadTooLarge(exceptions.APIException):
    status_code = status.HTTP_413_REQUEST_ENTITY_TOO_LARGE
    default_detail = "the request body is too large"
    default_code = "too_large"


def _first_message(detail: Any) -> str:
    if isinstance(detail, dict):
        field, value = next(iter(detail.items()))
        return f"{field}: {_first_message(value)}" if field != "non_field_errors" else _first_message(value)
    if isinstance(detail, list) and detail:
        return _first_message(detail[0])
    return str(detail)


def exception_handler(error: Exception, context: dict[str, Any]) -> Response | None:
    request = context.get("request")
    where = f"{request.method} {request.path}" if request is not None else "?"
    if isinstance(error, GameError):
        logger.warning("%s refused (%s): %s", where, error.code, error.message)
        body: dict[str, Any] = {"error": error.message, "code": error.code}
        if error.index is not None:
            body["index"] = error.index
        return Response(body, status=error.status)
    if isinstance(error, RequestDataTooBig):
        # Django refuses to read a body over DATA_UPLOAD_MAX_MEMORY_SIZE (a finish needs about 1 KB).
        error = PayloadTooLarge()
    response = drf_exception_handler(error, context)
    if response is not None:
        code = getattr(error, "default_code", "error")
        if isinstance(error, exceptions.ValidationError):
            code = "invalid"
        message = _first_message(getattr(error, "detail", str(error)))
        logger.warning("%s refused (%s): %s", where, code, message)
        response.data = {"error": message, "code": code}
    return response
