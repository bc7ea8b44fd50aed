"""Signals other apps listen to, so that games never imports them (leaderboards, races)."""

from django.dispatch import Signal

# Sent by games.events for every change made under the game's lock (a start, a finish, a hint), with
# `game` (saved) and `event` (the stored GameEvent): inside the change's transaction, so a receiver's
# writes commit or roll back with it. A move or undo, one conditional statement that is its own
# transaction (games/store.py), is not sent: receivers act on finishes, which always lock. A receiver
# must not call back into the game's services.
game_event_appended = Signal()

# Sent inside the transaction that changed finished ranked games' standing without an event of their
# own (a staff review, games moving to another player), with `game_ids`: a read model of the boards
# reads those games again.
game_standing_changed = Signal()

# Sent by games.transfers.games_erase inside its transaction, before the player's games are deleted, with
# `player` (whose account is being deleted), `stand_in` (a player no session or login can ever be) and
# `now`. A receiver hands to `stand_in` the rows of its own that other players still need, with the games
# those rows show (through games_transfer); every game still the player's afterwards is deleted.
player_games_erasing = Signal()
