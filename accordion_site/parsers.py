"""The API's JSON parser. A body nested too deeply for Python's parser, a number too large for a
float (`1e999`, which Python would read as infinity), and a string holding a control character (NUL…,
accordion_site/control_characters.py) are a 400 like any other bad JSON, in the request's language."""

from __future__ import annotations

import codecs
import json
import math
from typing import Any

from django.utils.translation import gettext as _
from rest_framework import exceptions, parsers

from .control_characters import REFUSAL, json_holds_control


def _finite(text: str) -> float:
    number = float(text)
    if not math.isfinite(number):
        raise ValueError(f"the number {text[:20]} is too large")
    return number


def _constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON value")


class JSONParser(parsers.JSONParser):
    def parse(self, stream: Any, media_type: str | None = None, parser_context: Any = None) -> Any:
        # DRF's own choice of charset: text charsets only (a bz2 "charset" would inflate past the size limit).
        encoding = parsers.get_encoding(parser_context or {})  # type: ignore[attr-defined]  # not in the stubs
        try:
            body = json.load(codecs.getreader(encoding)(stream), parse_float=_finite, parse_constant=_constant)
            if json_holds_control(body):
                raise ValueError(REFUSAL)
            return body
        except RecursionError:
            reason = "nested too deeply"
        except ValueError as error:
            reason = str(error)
        raise exceptions.ParseError(_("the body is not valid JSON: %(reason)s") % {"reason": reason})
