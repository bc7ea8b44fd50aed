"""Games answer what accounts asks (accounts/signals.py): accounts never imports games."""

from __future__ import annotations

import datetime
from typing import Any

from django.dispatch import receiver

from accounts.models import Player
from accounts.signals import account_erasing, daily_done_asked, guest_merging

from .selectors import player_daily_done
from .transfers import games_erase, games_transfer


@receiver(daily_done_asked, dispatch_uid="games.daily_done")
def daily_done(sender: Any, *, player: Player, today: datetime.date, **kwargs: Any) -> bool:
    return player_daily_done(player=player, today=today)


@receiver(guest_merging, dispatch_uid="games.guest_merging")
def guest_games_transfer(sender: Any, *, guest: Player, account: Player, **kwargs: Any) -> int:
    return games_transfer(source=guest, target=account)


@receiver(account_erasing, dispatch_uid="games.account_erasing")
def account_games_erase(sender: Any, *, player: Player, stand_in: Player, now: datetime.datetime, **kwargs: Any) -> int:
    return games_erase(player=player, stand_in=stand_in, now=now)
