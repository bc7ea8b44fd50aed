from __future__ import annotations

from typing import Any

from rest_framework.authentication import SessionAuthentication
from rest_framework.request import Request


class GuestSessionAuthentication(SessionAuthentication):
    """Session authentication that checks CSRF for guests too: a guest's games are worth protecting,
    and DRF's own class only checks CSRF once a Django user is logged in."""

    def authenticate(self, request: Request) -> tuple[Any, None] | None:
        self.enforce_csrf(request)
        return super().authenticate(request)
