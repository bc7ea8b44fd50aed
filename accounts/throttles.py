"""Allowances for sign-up, login and password attempts (rates in settings:
REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"]), counted atomically in the shared cache before any password is
hashed, so a burst gets no more than its allowance checked.

Attempts are counted per client address and per pair (address, account), never per account alone: a
count per account from everywhere would let anyone lock its owner out by guessing wrong from a few
addresses. The owner, on an address of their own, always gets their own allowance.
"""

from __future__ import annotations

import hashlib
from typing import Any

from rest_framework.request import Request

from accordion_site.throttles import RateThrottle, request_player

from .nicknames import NICKNAME_KEY_MAX_LENGTH, nickname_key

# The ASGI scope's key naming the allowances accounts/door.py has counted.
COUNTED_AT_THE_DOOR = "accordion.counted_allowances"


class DoorCountedThrottle(RateThrottle):
    """An allowance that accounts/door.py counts before the request reaches Django, when it does: a
    request it has counted is not counted twice."""

    def allow_request(self, request: Request, view: Any) -> bool:
        if self.scope in getattr(request, "scope", {}).get(COUNTED_AT_THE_DOOR, ()):
            return True
        return super().allow_request(request, view)


class AccountAddressThrottle(DoorCountedThrottle):
    """Attempts from one client address, whatever nicknames they try: "accounts_address"."""

    scope = "accounts_address"

    def get_cache_key(self, request: Request, view: Any) -> str:
        return self.cache_key_for(self.get_ident(request))


class AccountPairThrottle(RateThrottle):
    """Attempts on one account from one client address: "accounts_pair". The account is the session's own
    when it is logged in to one (a password change, a deletion: a nickname in the body changes nothing),
    else the nickname in the body; nicknames are counted by their key, so "ADA" and "ada" share a count."""

    scope = "accounts_pair"

    def get_cache_key(self, request: Request, view: Any) -> str | None:
        player = request_player(request)
        nickname = request.data.get("nickname") if isinstance(request.data, dict) else None
        if player is not None and (player.is_account or not isinstance(nickname, str)):
            nickname = player.nickname
        if not isinstance(nickname, str):
            return None
        key = nickname_key(nickname[: NICKNAME_KEY_MAX_LENGTH * 2])
        pair = f"{self.get_ident(request)}\n{key}"
        return self.cache_key_for(hashlib.sha256(pair.encode()).hexdigest())  # any script, fixed length


class SignupAddressThrottle(DoorCountedThrottle):
    """New accounts from one client address: "accounts_signup". An account brings a ranked attempt of its
    own, so accounts made in bulk from one address would buy what fresh guests cannot."""

    scope = "accounts_signup"

    def get_cache_key(self, request: Request, view: Any) -> str:
        return self.cache_key_for(self.get_ident(request))
