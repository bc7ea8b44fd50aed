"""Input serializers every API shares: request bodies that take only the fields they name, with the
JSON types they name. DRF's own fields also take other shapes ("600" for a number, 123 for text,
"no" for a boolean); a client that sends those is told, not guessed at."""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from rest_framework import serializers


class ClosedInputSerializer(serializers.Serializer):
    """A request body that names only the fields it may: anything else is refused, so that a client
    never believes the server took its own score, time or date."""

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        unknown = sorted(set(self.initial_data) - set(self.fields)) if isinstance(self.initial_data, dict) else []
        if unknown:
            allowed = ", ".join(self.fields)
            raise serializers.ValidationError(
                {
                    unknown[0]: _("not a field of this request (it takes %(fields)s): the server decides the rest")
                    % {"fields": allowed}
                }
            )
        return attrs


class StrictCharField(serializers.CharField):
    """Text, and only text: a number or a boolean is refused, not turned into its digits."""

    default_error_messages = {"invalid": gettext_lazy("must be text")}

    def to_internal_value(self, data: Any) -> str:
        if not isinstance(data, str):
            self.fail("invalid")
        return super().to_internal_value(data)  # type: ignore[no-any-return]


class StrictBooleanField(serializers.BooleanField):
    """JSON's true or false, and nothing else ("no", 0 and "true" are refused)."""

    default_error_messages = {"invalid": gettext_lazy("must be true or false")}

    def to_internal_value(self, data: Any) -> bool:
        if not isinstance(data, bool):
            self.fail("invalid")
        return data
