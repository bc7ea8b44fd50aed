"""Allowances for sign-up, login and password attempts, per client address and per nickname (rates in
settings: REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"]). The counts live in the shared cache."""

from __future__ import annotations

import hashlib
from typing import Any

from rest_framework.request import Request

from accordion_site.throttles import RateThrottle, request_player

from .nicknames import NICKNAME_KEY_MAX_LENGTH, nickname_key


class AccountAddressThrottle(RateThrottle):
    """Attempts from one client address, whatever nicknames they try."""

    scope = "accounts_address"

    def get_cache_key(self, request: Request, view: Any) -> str:
        return self.cache_format % {"scope": self.scope, "ident": self.get_ident(request)}


class AccountNicknameThrottle(RateThrottle):
    """Attempts on one nickname, from whatever addresses: the nickname in the body, or for a password
    change the session's own. Nicknames are counted by their key, so "ADA" and "ada" share a count."""

    scope = "accounts_nickname"

    def get_cache_key(self, request: Request, view: Any) -> str | None:
        nickname = request.data.get("nickname") if isinstance(request.data, dict) else None
        if not isinstance(nickname, str):
            player = request_player(request)
            if player is None:
                return None
            nickname = player.nickname
        key = nickname_key(nickname[: NICKNAME_KEY_MAX_LENGTH * 2])
        ident = hashlib.sha256(key.encode()).hexdigest()  # any script, fixed length: safe in any cache
        return self.cache_format % {"scope": self.scope, "ident": ident}
