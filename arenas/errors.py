"""Refusals of arena services, each with a stable `code` (the API's errors and the socket's rejects)."""

from __future__ import annotations

from accordion_site.errors import ServiceError


class ArenaError(ServiceError):
    """A request the arena's rules refuse (a length or start out of range)."""


class ArenaNotFound(ArenaError):
    code = "not_found"
    status = 404


class ArenaFinished(ArenaError):
    code = "arena_finished"
    status = 409


class ArenaNotStarted(ArenaError):
    code = "not_started"
    status = 409


class NotParticipant(ArenaError):
    """A participant's command from someone who has not joined (a spectator, a visitor)."""

    code = "not_participant"
    status = 403


class GameInPlay(ArenaError):
    """A next game asked for while the current one is still in play: one game at a time."""

    code = "game_in_play"
    status = 409
