"""Fair play for ranked daily attempts: the per-address allowance of ranked attempts. How each
finished result is assessed is games/assessment.py (the rules: games/engine/risk.py)."""

from __future__ import annotations

import datetime

from django.conf import settings
from django.db import connection
from django.utils.crypto import salted_hmac

from accounts.models import Player

from .models import RankedSlot


def address_key(address: str) -> str:
    """A keyed hash of a client address: enough to count an address's ranked attempts, without storing
    the address itself."""
    return salted_hmac("games.fair_play.address", address, algorithm="sha256").hexdigest()


def address_attempts(*, deal_id: int, key: str) -> int:
    """Ranked attempts at a deal taken from the address with this key and counted in its allowance (an
    established account's own attempt is not). The ledger keeps them when games and players go."""
    return RankedSlot.objects.filter(deal_id=deal_id, address_key=key, own_slot=False).count()


def address_lock(*, deal_id: int, key: str) -> None:
    """Hold, until the transaction ends, a lock on the address's ranked attempts at the deal, so that
    simultaneous first starts from one address are counted one after the other and none slips past
    the allowance. A PostgreSQL advisory lock: it names no row, so other addresses never wait (two that
    share the key's first 32 bits only queue a moment). SQLite writes one transaction at a time anyway."""
    if connection.vendor != "postgresql":
        return
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_advisory_xact_lock(%s, %s)", [deal_id % 2**31, int(key[:8], 16) - 2**31])


def holds_own_slot(*, player: Player, now: datetime.datetime) -> bool:
    """Whether the player is an established account, whose ranked attempt is its own whatever its
    address: an account at least ACCOUNT_OWN_SLOT_AFTER_HOURS old. With the default 24 hours, an account
    made once a daily deal is out never has an attempt of its own at that deal."""
    user = player.user
    return user is not None and now - user.date_joined >= datetime.timedelta(
        hours=settings.ACCOUNT_OWN_SLOT_AFTER_HOURS
    )
