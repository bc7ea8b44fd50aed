"""The API schema: drf-spectacular's, plus the 429 every throttled operation can answer and the 400 any
operation answers to a control character in its path, query string or headers
(accordion_site/control_characters.py), so the schema names every status a client may see without
each view repeating it."""

from __future__ import annotations

from typing import Any

from drf_spectacular import openapi
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter

from .api_errors import ErrorSerializer

RETRY_AFTER = OpenApiParameter(
    name="Retry-After",
    type=OpenApiTypes.INT,
    location=OpenApiParameter.HEADER,
    description="Seconds until the request would be allowed.",
    response=[429],
)


class AutoSchema(openapi.AutoSchema):
    def _throttled(self) -> bool:
        return bool(self.view.get_throttles())

    def _get_response_bodies(self, direction: Any = "response") -> dict[str, Any]:
        # Not get_response_serializers: @extend_schema replaces that method with its own `responses`.
        responses: dict[str, Any] = super()._get_response_bodies(direction)
        if self._throttled() and "429" not in responses:
            responses["429"] = self._get_response_for_code(ErrorSerializer, "429", direction=direction)
        if "400" not in responses:
            responses["400"] = self._get_response_for_code(ErrorSerializer, "400", direction=direction)
        return responses

    def get_override_parameters(self) -> list[Any]:
        parameters = list(super().get_override_parameters())
        if self._throttled():
            parameters.append(RETRY_AFTER)
        return parameters
