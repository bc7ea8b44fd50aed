"""Errors raised by game services, each with a stable machine-readable `code` for clients."""

from __future__ import annotations

from accordion_site.errors import ServiceError


class GameError(ServiceError):
    """A request the rules or the game's state refuse."""


class GameNotFound(GameError):
    code = "not_found"
    status = 404


class DealCodeTypo(GameError):
    """A deal code whose check symbol does not fit: one of its symbols was mistyped."""

    code = "deal_code_typo"


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


class GameChanged(GameError):
    code = "game_changed"
    status = 409


class AttemptDayOver(GameFinished):
    """A ranked attempt whose day is over: it was closed where it stood, so the day's published line
    cannot be used on it. Clients treat it as any finished game (same code)."""


class GameNotStarted(GameError):
    code = "not_started"
    status = 409


class LinesWithheld(GameError):
    """A daily deal's move lines reach no one but their owners before its day is over."""

    code = "withheld"
    status = 403
