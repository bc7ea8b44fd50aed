"""schemathesis fuzzes every operation of /api/schema/ in-process (the WSGI handler over the same
Django): no answer is a 5xx, and every answer conforms to the schema (status, content type, body)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import schemathesis
from django.core.signals import request_finished, request_started
from django.core.wsgi import get_wsgi_application
from django.db import close_old_connections
from hypothesis import HealthCheck, settings
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
    status_code_conformance,
)

# A few examples per operation keep the run short; every operation and method is still reached.
EXAMPLES_PER_OPERATION = 8
# What the server answers: never a 5xx, and only statuses, types, headers and bodies the schema names.
# (Not the checks that judge which requests should be refused: a date that is a string but not a date
# is a documented 400, and the public endpoints need no authentication by design.)
ANSWER_CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
]


@pytest.fixture
def api_schema(db: None) -> Iterator[schemathesis.BaseSchema]:
    # As Django's test client does: a request must not close the test's connection, whose transaction
    # holds the test database's rows.
    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    try:
        yield schemathesis.openapi.from_wsgi("/api/schema/", get_wsgi_application())
    finally:
        request_started.connect(close_old_connections)
        request_finished.connect(close_old_connections)


schema = schemathesis.pytest.from_fixture("api_schema")


@schema.parametrize()
@settings(
    max_examples=EXAMPLES_PER_OPERATION,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture, HealthCheck.filter_too_much],
)
def test_the_api_answers_any_request_within_its_schema_and_never_with_a_server_error(case):
    case.call_and_validate(checks=ANSWER_CHECKS)
