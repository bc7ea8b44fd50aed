"""Refusals of race services, each with a stable `code` for clients (the room socket's `reject`s and
the API's errors alike)."""

from __future__ import annotations

from accordion_site.errors import ServiceError


class RaceError(ServiceError):
    """A request the room's state or the race's rules refuse."""


class RoomNotFound(RaceError):
    code = "not_found"
    status = 404


class NotHost(RaceError):
    code = "not_host"
    status = 403


class NotRacer(RaceError):
    """Racers' commands from a watcher (or a visitor, or someone kicked)."""

    code = "not_racer"
    status = 403


class WrongState(RaceError):
    """A command the room's state does not allow now (a kick after the start, a rematch before the end)."""

    code = "wrong_state"
    status = 409


class NotEnoughReady(RaceError):
    code = "not_enough_ready"


class RoomFull(RaceError):
    code = "room_full"
    status = 409


class SpoilerWithheld(RaceError):
    """A ghost on a daily deal whose day is not over, or a room racing one, for anyone but its player."""

    code = "spoiler"
    status = 403


class NotStarted(RaceError):
    code = "not_started"
    status = 409
