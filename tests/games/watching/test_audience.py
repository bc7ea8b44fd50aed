"""A game's audience in one process: at most one frame a tick for each watcher, with the watcher count
and the still-winnable badge riding in the events' frame, so that a watcher gets one frame an event."""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass, field
from typing import Any

import pytest

from games.events import EVENT
from games.watching import runtime
from games.watching.runtime import Audience
from realtime.bus import Message

GAME = 7
GROUP = f"game.{GAME}"
# Longer than any wait of the audience's in these tests: what is due has been sent by then.
SETTLED_S = 0.3


@dataclass(eq=False)
class FakeWatcher:
    """What the audience needs of a watcher's socket, keeping the frames it is sent."""

    is_owner: bool = False
    held: list[Message] | None = None
    version_sent: int = 1
    frames: list[dict[str, Any]] = field(default_factory=list)

    async def send_frame(self, message: dict[str, Any]) -> None:
        self.frames.append(json.loads(message["text"]))


def move(v: int) -> Message:
    frame = json.dumps({"t": "event", "v": v, "kind": "move"})
    return Message(GROUP, EVENT, v, frame, {"kind": "move"})


def badge(v: int) -> Message:
    return Message(GROUP, "winnable", v, json.dumps({"t": "winnable", "game": GAME, "v": v, "status": "win"}))


def crowd(watchers: int) -> Message:
    return Message(GROUP, "crowd", frame=json.dumps({"t": "crowd", "watchers": watchers}))


def audience_of(*watchers: FakeWatcher) -> Audience:
    audience = Audience(GAME, on_position=lambda game_id, v: True)
    audience.watchers.update(watchers)
    return audience


@pytest.fixture
def short_crowd_wait(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(runtime, "CROWD_WAIT_S", 0.1)


async def test_a_badge_that_comes_in_time_rides_in_its_moves_frame():
    watcher = FakeWatcher()
    audience = audience_of(watcher)

    await audience.hear(move(2))
    assert watcher.frames == []  # waiting for the badge
    await audience.hear(badge(2))
    await asyncio.sleep(SETTLED_S)

    assert watcher.frames == [
        {
            "t": "events",
            "events": [{"t": "event", "v": 2, "kind": "move"}],
            "also": [{"t": "winnable", "game": GAME, "v": 2, "status": "win"}],
        }
    ]
    await audience.stop()


async def test_a_move_whose_badge_does_not_come_in_time_goes_alone_and_the_next_does_not_wait():
    watcher = FakeWatcher()
    audience = audience_of(watcher)

    await audience.hear(move(2))
    await asyncio.sleep(runtime.BADGE_WAIT_S + 0.05)
    assert watcher.frames == [{"t": "event", "v": 2, "kind": "move"}]

    await asyncio.sleep(runtime.AUDIENCE_TICK_S)
    await audience.hear(move(3))
    assert watcher.frames[-1] == {"t": "event", "v": 3, "kind": "move"}  # at once: badges come late
    await audience.hear(badge(3))  # late, but the board is still there: it comes alone
    await asyncio.sleep(SETTLED_S)
    assert watcher.frames[2:] == [{"t": "winnable", "game": GAME, "v": 3, "status": "win"}]
    await audience.stop()


async def test_a_badge_of_a_position_the_board_has_left_is_not_sent():
    watcher = FakeWatcher()
    audience = audience_of(watcher)

    await audience.hear(move(2))
    await audience.hear(move(3))
    await audience.hear(badge(2))
    await asyncio.sleep(SETTLED_S)

    assert [frame["t"] for frame in watcher.frames] == ["events"]
    assert [event["v"] for event in watcher.frames[0]["events"]] == [2, 3]
    assert "also" not in watcher.frames[0]
    await audience.stop()


async def test_the_player_watching_their_game_gets_the_same_frame_without_the_badge():
    player, other = FakeWatcher(is_owner=True), FakeWatcher()
    audience = audience_of(player, other)

    await audience.hear(move(2))
    await audience.hear(badge(2))
    await asyncio.sleep(SETTLED_S)

    assert player.frames == [{"t": "event", "v": 2, "kind": "move"}]
    assert [message["t"] for message in other.frames[0]["also"]] == ["winnable"]
    await audience.stop()


async def test_a_badge_that_comes_alone_is_not_sent_to_the_player_at_all():
    player, other = FakeWatcher(is_owner=True), FakeWatcher()
    audience = audience_of(player, other)

    await audience.hear(move(2))
    await asyncio.sleep(runtime.BADGE_WAIT_S + 0.05)
    await audience.hear(badge(2))
    await asyncio.sleep(SETTLED_S)

    assert player.frames == [{"t": "event", "v": 2, "kind": "move"}]
    assert other.frames[1:] == [{"t": "winnable", "game": GAME, "v": 2, "status": "win"}]
    await audience.stop()


@pytest.mark.usefixtures("short_crowd_wait")
async def test_a_watcher_count_rides_in_the_next_frame_or_comes_alone_when_none_does():
    watcher = FakeWatcher()
    audience = audience_of(watcher)

    await audience.hear(crowd(3))
    assert watcher.frames == []
    await audience.hear(move(2))
    await audience.hear(badge(2))
    await asyncio.sleep(SETTLED_S)
    assert len(watcher.frames) == 1
    assert watcher.frames[0]["also"][0] == {"t": "crowd", "watchers": 3}

    await audience.hear(crowd(4))
    await asyncio.sleep(SETTLED_S)
    assert watcher.frames[1:] == [{"t": "crowd", "watchers": 4}]
    await audience.stop()
