"""Signals other apps listen to, so that games never imports them (leaderboards, races)."""

from django.dispatch import Signal

# Sent by games.events.append inside the transaction of every change, with `game` (saved, still
# locked) and `event` (the stored GameEvent). A receiver's writes commit or roll back with the change;
# it must not call back into the game's services.
game_event_appended = Signal()
