"""Signals other apps listen to, so that games never imports them (leaderboards, races)."""

from django.dispatch import Signal

# Sent by games.events.append inside the transaction of every change, with `game` (saved, still
# locked) and `event` (the stored GameEvent). A receiver's writes commit or roll back with the change;
# it must not call back into the game's services.
game_event_appended = Signal()

# Sent inside the transaction that changed finished ranked games' standing without an event of their
# own (a staff review, games moving to another player), with `game_ids`: a read model of the boards
# reads those games again.
game_standing_changed = Signal()
