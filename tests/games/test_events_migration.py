"""The migration that brings in events gives the games already played the history that can still be told,
so that a second tab, a watcher and a replay follow an old game as they follow a new one."""

from __future__ import annotations

import datetime

from games import engine
from tests.schema import migrate, newest_migrations

NOON = datetime.datetime(2026, 11, 20, 12, tzinfo=datetime.UTC)


def first_moves(cards: list[str], count: int) -> list[list[int]]:
    position, line = engine.replay(cards, []), []
    for _ in range(count):
        move = engine.legal_moves(position)[0]
        position = engine.apply_move(position, move)
        line.append(list(move))
    return line


def test_games_from_before_events_get_their_start_hints_moves_and_finish_as_events(schema_restored):
    accounts = next(node for node in newest_migrations() if node[0] == "accounts")
    old = migrate([("games", "0002_game_hints"), accounts])
    Player, Deal, Game = (
        old.get_model(*name) for name in (("accounts", "Player"), ("games", "Deal"), ("games", "Game"))
    )
    ada = Player.objects.create(nickname="Ada", nickname_key="ada")
    code = engine.new_deal_code()
    cards = engine.deal_from_code(code)
    deal = Deal.objects.create(cards=cards, code=engine.format_deal_code(code))
    line = first_moves(cards, 5)

    def game(*, moves, hints=0, status="playing", finished_at=None):
        return Game.objects.create(
            player=ada, deal=deal, mode="code", started_at=NOON, moves=moves,
            piles=engine.replay(cards, moves).piles, version=len(moves) + hints, hints=hints, status=status,
            finished_at=finished_at,
        ).pk  # fmt: skip

    untouched = game(moves=[])
    playing = game(moves=line, hints=1)
    finished = game(moves=line[:3], status="finished", finished_at=NOON + datetime.timedelta(minutes=2))

    new = migrate([("games", "0003_game_events")])
    Game, GameEvent = new.get_model("games", "Game"), new.get_model("games", "GameEvent")

    def history(pk: int) -> list[tuple[int, str, list[int] | None, int, datetime.datetime]]:
        return list(GameEvent.objects.filter(game_id=pk).order_by("v").values_list("v", "kind", "move", "piles", "at"))

    assert history(untouched) == [(1, "start", None, 52, NOON)]
    assert history(playing) == [(1, "start", None, 52, NOON), (2, "hint", None, 52, NOON)] + [
        (v, "move", move, engine.replay(cards, line[: v - 2]).piles, NOON) for v, move in enumerate(line, start=3)
    ]
    finish = history(finished)
    assert [kind for _, kind, *_ in finish] == ["start", "move", "move", "move", "finish"]
    assert finish[-1][4] == NOON + datetime.timedelta(minutes=2)
    assert {pk: version for pk, version in Game.objects.values_list("pk", "version")} == {
        untouched: 1, playing: 7, finished: 5,
    }  # fmt: skip
