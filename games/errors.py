"""Errors raised by game services, each with a stable machine-readable `code` for clients."""

from __future__ import annotations

from accordion_site.errors import ServiceError


class GameError(ServiceError):
    """A request the rules or the game's state refuse."""


class GameNotFound(GameError):
    code = "not_found"
    status = 404


class NotYourGame(GameError):
    code = "not_your_game"
    status = 403


class GameFinished(GameError):
    code = "game_finished"
    status = 409


class IllegalMoveError(GameError):
    code = "illegal_move"


class NothingToUndo(GameError):
    code = "nothing_to_undo"


class NeedsUnrankedConsent(GameError):
    code = "confirm_unranked"


class SolverBusy(GameError):
    code = "busy"
    status = 503


class TooManyRequests(GameError):
    code = "rate_limited"
    status = 429


class GameChanged(GameError):
    code = "game_changed"
    status = 409
