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


class AccountAddressThrottle(RateThrottle):
    """Attempts from one client address, whatever nicknames they try: "accounts_address"."""

    scope = "accounts_address"

    def get_cache_key(self, request: Request, view: Any) -> str:
        return self.cache_key_for(self.get_ident(request))


class AccountPairThrottle(RateThrottle):
    """Attempts on one account from one client address: "accounts_pair". The account is the nickname in
    the body, or for a password change or deletion the session's own; nicknames are counted by their key,
    so "ADA" and "ada" share a count."""

    scope = "accounts_pair"

    def get_cache_key(self, request: Request, view: Any) -> str | None:
        nickname = request.data.get("nickname") if isinstance(request.data, dict) else None
        if not isinstance(nickname, str):
            player = request_player(request)
            if player is None:
                return None
            nickname = player.nickname
        key = nickname_key(nickname[: NICKNAME_KEY_MAX_LENGTH * 2])
        pair = f"{self.get_ident(request)}\n{key}"
        return self.cache_key_for(hashlib.sha256(pair.encode()).hexdigest())  # any script, fixed length


class SignupAddressThrottle(RateThrottle):
    """New accounts from one client address: "accounts_signup". An account brings a ranked attempt of its
    own, so accounts made in bulk from one address would buy what fresh guests cannot."""

    scope = "accounts_signup"

    def get_cache_key(self, request: Request, view: Any) -> str:
        return self.cache_key_for(self.get_ident(request))
