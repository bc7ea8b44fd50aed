"""Every message a socket sends is declared once (realtime.protocol.outgoing) and documented in
docs/api.md, the client contract: a kind declared but not documented, or documented but neither declared
nor a client's command, fails here."""

from __future__ import annotations

import re
from pathlib import Path

import arenas.protocol
import games.events
import games.protocol
import games.races.protocol
import games.watching.protocol
from realtime.protocol import OUTGOING

API = Path(__file__).resolve().parents[2] / "docs" / "api.md"
DECLARING = (arenas.protocol, games.events, games.protocol, games.races.protocol, games.watching.protocol)


def documented() -> set[str]:
    return set(re.findall(r'"t": "([a-z_]+)"', API.read_text()))


def test_every_outgoing_message_is_documented_in_the_api() -> None:
    assert DECLARING  # imported for their declarations
    assert set(OUTGOING) - documented() == set()


def test_every_documented_message_is_declared_or_a_client_command() -> None:
    commands = {*games.protocol.CLIENT_KINDS, *games.races.protocol.CLIENT_KINDS, *arenas.protocol.CLIENT_KINDS}
    assert documented() - set(OUTGOING) - commands == set()


def test_every_outgoing_builder_says_what_it_sends() -> None:
    undocumented = [
        builder.__qualname__ for builders in OUTGOING.values() for builder in builders if not builder.__doc__
    ]
    assert undocumented == []
