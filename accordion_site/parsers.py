"""The API's JSON parser: a body nested too deeply for Python's parser is a 400 like any other bad JSON."""

from __future__ import annotations

from typing import Any

from rest_framework import exceptions, parsers


class JSONParser(parsers.JSONParser):
    def parse(self, stream: Any, media_type: str | None = None, parser_context: Any = None) -> Any:
        try:
            return super().parse(stream, media_type, parser_context)
        except RecursionError:
            raise exceptions.ParseError("JSON parse error - nested too deeply") from None
