"""Any sequence of moves, undos, illegal moves, finishes and reconnecting clients' catch-ups keeps the
stored game equal to a replay of its line, its events gapless and replaying to it, and every
reconnecting client's line equal to the server's (Hypothesis explores the sequences). Moves come with
or without the game as a socket knows it, at its current version or an older one."""

from __future__ import annotations

import datetime
import json
from collections.abc import Callable

import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule, run_state_machine_as_test

from accounts.models import Player
from games import engine, events, services
from games.errors import GameFinished, IllegalMoveError, NothingToUndo
from games.models import Game, GameEvent
from tests.conftest import VECTORS

START = datetime.datetime(2026, 11, 30, 12, 0, tzinfo=datetime.UTC)
# A reconnecting client further behind than this gets the whole game instead (as the socket does).
CATCH_UP_LIMIT = 50
# The deal of tests/vectors/winning_game.json: random play on it reaches a win now and then.
DEAL_CODE = json.loads((VECTORS / "winning_game.json").read_text())["deal_code"]


def client_line_after(line: list[list[int]], missed: list[events.GameEventOut]) -> list[list[int]]:
    """What a client holding `line` has after applying the events it missed, as the socket's link does."""
    line = [list(move) for move in line]
    for event in missed:
        frame = json.loads(event.frame)
        if frame["kind"] == "undo":
            assert line.pop() == frame["move"]
        elif frame["kind"] == "finish" and frame["line"] is not None:
            line = frame["line"]
        elif frame["move"] is not None:
            line.append(frame["move"])
    return line


class GameServices(RuleBasedStateMachine):
    """One code game played through the services; the model is the line a player believes in, and the
    line the game had at each version (what a client that stopped there holds)."""

    move_on_known: Callable[..., services.KnownGame]  # the `move_on_known` fixture (tests/games/conftest.py)

    def __init__(self) -> None:
        super().__init__()
        self.player = Player.objects.create(nickname=f"Prop-{Player.objects.count()}")
        self.clock = START
        self.game, _ = services.game_start(player=self.player, mode="code", code=DEAL_CODE, now=self.clock)
        self.deal = list(self.game.deal.cards)
        self.line: list[list[int]] = []
        self.lines_at: dict[int, list[list[int]]] = {1: []}  # version → the line the game had then
        # version → the game as a socket that last saw that version knows it (moves may pass it)
        self.known_at: dict[int, services.KnownGame] = {1: services.KnownGame.of(self.game)}
        self.finished = False

    def _tick(self) -> datetime.datetime:
        self.clock += datetime.timedelta(seconds=7)
        return self.clock

    def _position(self) -> engine.Position:
        return engine.replay(self.deal, self.line)

    def _stored(self, game: Game | services.KnownGame) -> None:
        known = services.KnownGame.of(game) if isinstance(game, Game) else game
        self.lines_at[known.version] = [list(move) for move in known.line]
        self.known_at[known.version] = known

    def _move(self, move: list[int], known: services.KnownGame | None) -> Game | services.KnownGame:
        """The move by the REST-like path, or by a socket that knows the game as `known`."""
        if known is None:
            return services.game_move(game_id=self.game.pk, player=self.player, move=move, now=self._tick())
        return self.move_on_known(known=known, player=self.player, move=move, now=self._tick())

    def _known(self, pick: int | None) -> services.KnownGame | None:
        """No known game, or the game as known at one of its versions, the current one or an older one."""
        return None if pick is None else self.known_at[sorted(self.known_at)[pick % len(self.known_at)]]

    @precondition(lambda self: not self.finished)
    @rule(choice=st.integers(min_value=0, max_value=10_000), known=st.none() | st.integers(0, 10_000))
    def move(self, choice: int, known: int | None) -> None:
        """A move, by the REST-like path or by a socket that knows the game at some version."""
        legal = engine.legal_moves(self._position())
        if not legal:
            return
        move = list(legal[choice % len(legal)])
        game = self._move(move, self._known(known))
        self.line.append(move)
        self.finished = game.status == Game.Status.FINISHED
        self._stored(game)

    @precondition(lambda self: not self.finished)
    @rule(
        source=st.integers(min_value=0, max_value=60),
        onto=st.integers(min_value=-2, max_value=60),
        known=st.none() | st.integers(0, 10_000),
    )
    def illegal_move(self, source: int, onto: int, known: int | None) -> None:
        move = [source, onto]
        if move in [list(legal) for legal in engine.legal_moves(self._position())]:
            return
        with pytest.raises(IllegalMoveError):
            self._move(move, self._known(known))

    @rule()
    def undo(self) -> None:
        if self.finished:
            with pytest.raises(GameFinished):
                services.game_undo(game_id=self.game.pk, player=self.player, now=self._tick())
        elif not self.line:
            with pytest.raises(NothingToUndo):
                services.game_undo(game_id=self.game.pk, player=self.player, now=self._tick())
        else:
            game = services.game_undo(game_id=self.game.pk, player=self.player, now=self._tick())
            self.line.pop()
            self._stored(game)

    @rule(offline=st.lists(st.integers(min_value=0, max_value=10_000), max_size=4), undone=st.integers(0, 3))
    def finish(self, offline: list[int], undone: int) -> None:
        """End the game over REST with the stored line, some of it taken back or played on while offline."""
        line = [list(move) for move in self.line[: max(0, len(self.line) - undone)]]
        for choice in offline:
            legal = engine.legal_moves(engine.replay(self.deal, line))
            if legal:
                line.append(list(legal[choice % len(legal)]))
        if self.finished:
            if line != self.line:
                with pytest.raises(GameFinished):
                    services.game_finish(game_id=self.game.pk, player=self.player, moves=line, now=self._tick())
            return
        game = services.game_finish(game_id=self.game.pk, player=self.player, moves=line, now=self._tick())
        self.line, self.finished = line, True
        self._stored(game)

    @rule(data=st.data())
    def reconnect(self, data: st.DataObject) -> None:
        """A client that stopped at some version reconnects with ?v= and applies what it missed."""
        version = data.draw(st.sampled_from(sorted(self.lines_at)))
        game = Game.objects.get(pk=self.game.pk)
        missed = events.events_after(game=game, v=version, limit=CATCH_UP_LIMIT)
        if missed is None:
            assert game.version - version > CATCH_UP_LIMIT
            return
        assert [event.v for event in missed] == list(range(version + 1, game.version + 1))
        assert client_line_after(self.lines_at[version], missed) == game.moves

    @invariant()
    def stored_game_is_the_replay_of_its_line(self) -> None:
        game = Game.objects.get(pk=self.game.pk)
        assert game.moves == self.line
        position = engine.replay(self.deal, game.moves)
        assert game.piles == position.piles
        assert (game.status == Game.Status.FINISHED) == self.finished

    @invariant()
    def events_are_gapless_and_replay_to_the_game(self) -> None:
        game = Game.objects.get(pk=self.game.pk)
        stored = list(GameEvent.objects.filter(game=game).order_by("v"))
        assert [event.v for event in stored] == list(range(1, game.version + 1))
        line: list[list[int]] = []
        for event in stored:
            if event.kind == GameEvent.Kind.UNDO:
                assert line.pop() == event.move
            elif event.kind == GameEvent.Kind.FINISH and event.line is not None:
                line = event.line
            elif event.move is not None:
                line.append(event.move)
            assert engine.replay(self.deal, line).piles == event.piles
        assert line == game.moves


@pytest.mark.django_db
def test_any_sequence_of_changes_keeps_the_game_equal_to_a_replay_of_its_events(move_on_known):
    GameServices.move_on_known = staticmethod(move_on_known)
    run_state_machine_as_test(
        GameServices,
        settings=settings(
            max_examples=25,
            stateful_step_count=30,
            deadline=None,
            suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
        ),
    )
