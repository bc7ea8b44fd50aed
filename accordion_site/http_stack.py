"""Django's HTTP requests under Daphne, their middleware and view in one call on the request's thread.

Django's own ASGI handler builds its middleware chain for the event loop: each `MiddlewareMixin`
middleware's `process_request` and `process_response`, each `process_view` and the view itself go to
the request's thread and back to the loop one at a time, and a synchronous-only middleware turns the
chain back again: 20 hops between the loop and the thread for `GET /api/arenas`. Every middleware and
view of the site is synchronous, so the chain is built synchronously (as under WSGI) and called once on
the request's thread: 3 hops, the other two being Django's request-started signal and the answer's close
(tests/site/test_http_stack.py; its cost: `bench/api_requests.py`, docs/performance.md "An HTTP request
in one hop").
"""

from __future__ import annotations

import django
from asgiref.sync import sync_to_async
from django.core.handlers.asgi import ASGIHandler


class OneHopASGIHandler(ASGIHandler):
    def load_middleware(self, is_async: bool = False) -> None:
        super().load_middleware(is_async=False)
        # On the request's own thread, as Django runs a synchronous chain (ThreadSensitiveContext).
        self._middleware_chain = sync_to_async(self._middleware_chain, thread_sensitive=True)  # type: ignore[arg-type,has-type]


def get_http_application() -> OneHopASGIHandler:
    """`django.core.asgi.get_asgi_application` with the one-hop handler."""
    django.setup(set_prefix=False)
    return OneHopASGIHandler()
