"""The game as a watcher's `state` shows it, serialised once per version of the game in each process:
when a thousand watchers arrive on a popular game, one of them pays for the serializer, the others
get a copy with their own server clock."""

from __future__ import annotations

import datetime
import threading
from collections import OrderedDict
from typing import Any

from rest_framework import serializers

from games.models import Game
from games.serializers import game_payload

# Games (at one version each) whose payload is kept; a game's next version replaces its entry.
KEPT = 256

_lock = threading.Lock()
_payloads: OrderedDict[int, tuple[int, dict[str, Any]]] = OrderedDict()
_clock = serializers.DateTimeField()


def game_state(game: Game, *, now: datetime.datetime) -> dict[str, Any]:
    """`game_payload(game, now=now)` of a game in progress, from the copy kept for its version."""
    with _lock:
        kept = _payloads.get(game.pk)
        if kept is not None and kept[0] == game.version:
            _payloads.move_to_end(game.pk)
            return {**kept[1], "server_now": _clock.to_representation(now)}
    payload = game_payload(game, now=now)
    with _lock:
        _payloads[game.pk] = (game.version, payload)
        _payloads.move_to_end(game.pk)
        while len(_payloads) > KEPT:
            _payloads.popitem(last=False)
    return payload
