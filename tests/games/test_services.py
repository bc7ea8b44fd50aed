from __future__ import annotations

import datetime
import threading

import pytest
from django.conf import settings
from django.db import connection, connections
from django.test.utils import CaptureQueriesContext

from accounts.models import Player
from games import engine, services
from games.errors import GameError, GameFinished, IllegalMoveError, NothingToUndo, NotYourGame
from games.models import Game, GameEvent
from games.services import game_finish, game_move, game_start, game_undo

NOON = datetime.datetime(2026, 11, 30, 12, 0, tzinfo=datetime.UTC)

pytestmark = pytest.mark.django_db


def start_code_game(player: Player, code: str, now: datetime.datetime = NOON) -> Game:
    game, _ = game_start(player=player, mode="code", code=code, now=now)
    return game


def test_the_first_daily_game_of_a_date_is_ranked_and_deals_the_day(player):
    game, created = game_start(player=player, mode="daily", now=NOON)
    assert created and game.ranked
    assert game.deal.cards == engine.daily_deal(
        NOON.date(), engine.daily_seed(NOON.date(), secret=settings.DAILY_SECRET)
    )
    assert game.started_at == NOON


def test_starting_the_daily_again_resumes_the_attempt_with_its_original_clock(player):
    first, _ = game_start(player=player, mode="daily", now=NOON)
    again, created = game_start(player=player, mode="daily", now=NOON + datetime.timedelta(minutes=5))
    assert not created
    assert again.pk == first.pk and again.started_at == NOON


def test_a_daily_game_after_the_ranked_attempt_is_finished_is_practice(player):
    ranked, _ = game_start(player=player, mode="daily", now=NOON)
    game_finish(game_id=ranked.pk, player=player, moves=[], now=NOON + datetime.timedelta(seconds=30))
    practice, created = game_start(player=player, mode="daily", now=NOON + datetime.timedelta(minutes=1))
    assert created and not practice.ranked
    assert practice.deal_id == ranked.deal_id


def test_two_players_get_the_same_daily_deal(player, other_player):
    mine, _ = game_start(player=player, mode="daily", now=NOON)
    theirs, _ = game_start(player=other_player, mode="daily", now=NOON)
    assert mine.deal_id == theirs.deal_id and mine.pk != theirs.pk and theirs.ranked


def test_a_new_game_gets_a_fresh_deal_with_a_code_a_friend_can_play(player, other_player):
    mine, _ = game_start(player=player, mode="new", now=NOON)
    assert not mine.ranked
    friends = start_code_game(other_player, mine.deal.code.lower())
    assert friends.deal_id == mine.deal_id
    assert friends.deal.cards == engine.deal_from_code(mine.deal.code)


@pytest.mark.parametrize("code", ["", "nope", "0000-0000", "2222-22222"])
def test_a_bad_deal_code_is_refused_with_a_reason(player, code):
    with pytest.raises(GameError) as caught:
        start_code_game(player, code)
    assert "code" in caught.value.message


def test_an_unknown_mode_is_refused(player):
    with pytest.raises(GameError, match="unknown mode"):
        game_start(player=player, mode="speedrun", now=NOON)


def test_a_legal_move_is_stored_and_bumps_the_version(player, winning_game):
    game = start_code_game(player, winning_game["deal_code"])
    first_move = winning_game["moves"][0]
    game = game_move(game_id=game.pk, player=player, move=first_move, now=NOON)
    stored = Game.objects.get(pk=game.pk)
    assert stored.moves == [first_move] and stored.piles == 51 and stored.version == 2


def test_an_illegal_move_is_refused_naming_the_cards_and_nothing_is_stored(player, winning_game):
    game = start_code_game(player, winning_game["deal_code"])
    deal = winning_game["deal"]
    bad = next(
        [source, source - 1] for source in range(1, 52) if not engine.cards_match(deal[source], deal[source - 1])
    )
    with pytest.raises(IllegalMoveError) as caught:
        game_move(game_id=game.pk, player=player, move=bad, now=NOON)
    assert deal[bad[0]] in caught.value.message and "do not match" in caught.value.message
    stored = Game.objects.get(pk=game.pk)
    assert stored.moves == [] and stored.version == 1


def test_undo_takes_the_last_move_back(player, winning_game):
    game = start_code_game(player, winning_game["deal_code"])
    for move in winning_game["moves"][:2]:
        game_move(game_id=game.pk, player=player, move=move, now=NOON)
    game = game_undo(game_id=game.pk, player=player, now=NOON)
    assert game.moves == winning_game["moves"][:1] and game.piles == 51 and game.version == 4


def test_undo_with_no_moves_is_refused(player, winning_game):
    game = start_code_game(player, winning_game["deal_code"])
    with pytest.raises(NothingToUndo):
        game_undo(game_id=game.pk, player=player, now=NOON)


def test_the_move_that_leaves_one_pile_wins_the_game_at_that_instant(player, winning_game):
    game = start_code_game(player, winning_game["deal_code"])
    for move in winning_game["moves"][:-1]:
        game_move(game_id=game.pk, player=player, move=move, now=NOON)
    won_at = NOON + datetime.timedelta(seconds=75, milliseconds=900)
    game = game_move(game_id=game.pk, player=player, move=winning_game["moves"][-1], now=won_at)
    assert game.status == Game.Status.FINISHED and game.won
    assert game.seconds == 75 and game.finished_at == won_at
    assert game.score == 510 + 500 + (1200 - 75)


def test_finish_ignores_anything_but_the_moves_and_times_with_the_server_clock(player, winning_game):
    game = start_code_game(player, winning_game["deal_code"])
    game = game_finish(
        game_id=game.pk, player=player, moves=winning_game["moves"], now=NOON + datetime.timedelta(seconds=90)
    )
    assert game.score == 10 * 51 + 500 + (1200 - 90)
    assert game.piles == 1 and game.seconds == 90


def test_a_slow_win_gets_no_time_bonus(player, winning_game):
    game = start_code_game(player, winning_game["deal_code"])
    game = game_finish(
        game_id=game.pk, player=player, moves=winning_game["moves"], now=NOON + datetime.timedelta(hours=1)
    )
    assert game.score == 510 + 500


def test_ending_a_game_early_scores_the_removed_piles_only(player, winning_game):
    game = start_code_game(player, winning_game["deal_code"])
    game = game_finish(game_id=game.pk, player=player, moves=winning_game["moves"][:10], now=NOON)
    assert game.piles == 42 and game.score == 100 and not game.won


def test_finish_refuses_a_line_naming_its_first_illegal_move_and_stores_nothing(player, winning_game):
    game = start_code_game(player, winning_game["deal_code"])
    line = [*winning_game["moves"][:3], [0, 5], *winning_game["moves"][4:]]
    with pytest.raises(IllegalMoveError) as caught:
        game_finish(game_id=game.pk, player=player, moves=line, now=NOON)
    assert caught.value.index == 3
    assert Game.objects.get(pk=game.pk).status == Game.Status.PLAYING


def test_finishing_again_with_the_same_line_answers_with_the_stored_result(player, winning_game):
    game = start_code_game(player, winning_game["deal_code"])
    first = game_finish(game_id=game.pk, player=player, moves=winning_game["moves"][:5], now=NOON)
    again = game_finish(game_id=game.pk, player=player, moves=winning_game["moves"][:5], now=NOON)
    assert (again.piles, again.score, again.moves) == (first.piles, first.score, first.moves)


def test_a_second_finish_with_a_better_line_is_refused_and_the_result_stands(player, winning_game):
    game = start_code_game(player, winning_game["deal_code"])
    game_finish(game_id=game.pk, player=player, moves=winning_game["moves"][:5], now=NOON)
    with pytest.raises(GameFinished, match="its result stands"):
        game_finish(game_id=game.pk, player=player, moves=winning_game["moves"], now=NOON)
    assert Game.objects.get(pk=game.pk).piles == 47


def test_a_finished_game_cannot_be_changed(player, winning_game):
    game = start_code_game(player, winning_game["deal_code"])
    game_finish(game_id=game.pk, player=player, moves=winning_game["moves"][:1], now=NOON)
    with pytest.raises(GameFinished):
        game_move(game_id=game.pk, player=player, move=winning_game["moves"][1], now=NOON)
    with pytest.raises(GameFinished):
        game_undo(game_id=game.pk, player=player, now=NOON)


def test_nobody_can_move_undo_or_finish_someone_elses_game(player, other_player, winning_game):
    game = start_code_game(player, winning_game["deal_code"])
    with pytest.raises(NotYourGame):
        game_move(game_id=game.pk, player=other_player, move=winning_game["moves"][0], now=NOON)
    with pytest.raises(NotYourGame):
        game_undo(game_id=game.pk, player=other_player, now=NOON)
    with pytest.raises(NotYourGame):
        game_finish(game_id=game.pk, player=other_player, moves=[], now=NOON)
    assert Game.objects.get(pk=game.pk).version == 1


def test_a_winning_move_locks_only_its_own_game_so_players_of_the_same_deal_never_wait_for_each_other(
    player, other_player, winning_game
):
    if not connection.features.has_select_for_update_of:
        pytest.skip("this database has no row locks to take (SQLite)")
    start_code_game(other_player, winning_game["deal_code"])
    game = start_code_game(player, winning_game["deal_code"])
    for move in winning_game["moves"][:-1]:
        game_move(game_id=game.pk, player=player, move=move, now=NOON)
    with CaptureQueriesContext(connection) as queries:
        game_move(game_id=game.pk, player=player, move=winning_game["moves"][-1], now=NOON)
    locks = [query["sql"] for query in queries if "FOR UPDATE" in query["sql"]]
    assert locks and all('FOR UPDATE OF "games_game"' in sql for sql in locks)


def statements(queries: CaptureQueriesContext) -> list[str]:
    """The statements captured, without the savepoints of SQLite's nested transactions."""
    return [query["sql"] for query in queries if "SAVEPOINT" not in query["sql"]]


def test_a_move_is_stored_without_a_lock_in_one_read_and_one_statement(player, winning_game):
    game = start_code_game(player, winning_game["deal_code"])
    with CaptureQueriesContext(connection) as queries:
        game = game_move(game_id=game.pk, player=player, move=winning_game["moves"][0], now=NOON)
    # SQLite has no update and insert in one statement: two there.
    assert len(statements(queries)) == (2 if connection.vendor == "postgresql" else 3)
    assert not any("FOR UPDATE" in query["sql"] for query in queries)
    stored = Game.objects.get(pk=game.pk)
    assert stored.moves == [winning_game["moves"][0]] and stored.piles == 51 and stored.version == game.version == 2
    assert list(GameEvent.objects.filter(game=stored).values_list("v", "kind", "move")) == [
        (1, "start", None),
        (2, "move", winning_game["moves"][0]),
    ]


needs_postgresql = pytest.mark.skipif(connection.vendor != "postgresql", reason="SQLite prepares no statements")


def prepared_statements(pattern: str = "%") -> list[str]:
    """The statements prepared on this test's database connection whose text matches `pattern`."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT statement FROM pg_prepared_statements WHERE statement LIKE %s", [pattern])
        return [row[0] for row in cursor.fetchall()]


CONDITIONAL_CHANGE = '%SET "moves" = $%AND "version" = $%INSERT INTO "games_gameevent"%'  # a move's, not a start's


@needs_postgresql
def test_the_database_parses_a_moves_statement_once_per_connection_not_once_per_move(player, winning_game):
    game = start_code_game(player, winning_game["deal_code"])
    game = game_move(game_id=game.pk, player=player, move=winning_game["moves"][0], now=NOON)
    assert len(prepared_statements(CONDITIONAL_CHANGE)) == 1
    for move in winning_game["moves"][1:4]:
        game = game_move(game_id=game.pk, player=player, move=move, now=NOON)
    assert len(prepared_statements(CONDITIONAL_CHANGE)) == 1
    assert Game.objects.get(pk=game.pk).moves == winning_game["moves"][:4]


@needs_postgresql
def test_with_prepared_statements_switched_off_a_move_prepares_nothing(monkeypatch, player, winning_game):
    monkeypatch.setitem(connection.settings_dict["OPTIONS"], "prepare_threshold", None)
    game = start_code_game(player, winning_game["deal_code"])
    before = prepared_statements()
    game = game_move(game_id=game.pk, player=player, move=winning_game["moves"][0], now=NOON)
    game = game_move(game_id=game.pk, player=player, move=winning_game["moves"][1], now=NOON)
    assert prepared_statements() == before
    assert Game.objects.get(pk=game.pk).moves == winning_game["moves"][:2]


# A socket's move on the game as it knows it (games.services.game_move_async's `known`), its database
# calls made on this test's thread.


def test_a_move_on_the_game_as_known_is_stored_in_one_statement_without_a_read(player, winning_game, move_on_known):
    game = start_code_game(player, winning_game["deal_code"])
    known = services.KnownGame.of(game)
    with CaptureQueriesContext(connection) as queries:
        known = move_on_known(known=known, player=player, move=winning_game["moves"][0], now=NOON)
    assert len(statements(queries)) == (1 if connection.vendor == "postgresql" else 2)
    assert not any(sql.startswith("SELECT") for sql in statements(queries))
    stored = Game.objects.get(pk=game.pk)
    assert stored.moves == known.line == [winning_game["moves"][0]] and stored.version == known.version == 2


def test_a_move_on_a_game_known_before_another_tab_moved_is_played_on_the_stored_line(
    player, winning_game, move_on_known
):
    first, second = winning_game["moves"][:2]
    game = start_code_game(player, winning_game["deal_code"])
    game_move(game_id=game.pk, player=player, move=first, now=NOON)  # another tab
    moved = move_on_known(known=services.KnownGame.of(game), player=player, move=second, now=NOON)
    assert moved.line == [first, second] and moved.version == 3
    assert Game.objects.get(pk=game.pk).moves == [first, second]


def test_a_move_legal_only_on_the_line_as_known_is_refused_by_the_stored_line(player, winning_game, move_on_known):
    first = winning_game["moves"][0]
    game = start_code_game(player, winning_game["deal_code"])
    game_move(game_id=game.pk, player=player, move=first, now=NOON)  # another tab played it already
    assert first not in [list(move) for move in engine.legal_moves(engine.replay(winning_game["deal"], [first]))]
    with pytest.raises(IllegalMoveError):
        move_on_known(known=services.KnownGame.of(game), player=player, move=first, now=NOON)
    stored = Game.objects.get(pk=game.pk)
    assert stored.moves == [first] and stored.version == 2


def test_a_winning_move_on_the_game_as_known_finishes_it_with_its_result(player, winning_game, move_on_known):
    known = services.KnownGame.of(start_code_game(player, winning_game["deal_code"]))
    for move in winning_game["moves"][:-1]:
        known = move_on_known(known=known, player=player, move=move, now=NOON)
    won_at = NOON + datetime.timedelta(seconds=75)
    known = move_on_known(known=known, player=player, move=winning_game["moves"][-1], now=won_at)
    stored = Game.objects.get(pk=known.game_id)
    assert known.status == stored.status == Game.Status.FINISHED and known.version == stored.version
    assert stored.won and stored.score == 510 + 500 + (1200 - 75)
    assert GameEvent.objects.get(game=stored, v=stored.version).kind == "finish"


def test_a_winning_move_is_checked_by_the_engine_once(player, winning_game, move_on_known, monkeypatch):
    known = services.KnownGame.of(start_code_game(player, winning_game["deal_code"]))
    for move in winning_game["moves"][:-1]:
        known = move_on_known(known=known, player=player, move=move, now=NOON)
    checks = []
    monkeypatch.setattr(engine, "apply_move", lambda *args: checks.append(args) or engine.position.apply_move(*args))
    monkeypatch.setattr(engine, "replay", lambda *args: checks.append(args) or engine.position.replay(*args))
    known = move_on_known(known=known, player=player, move=winning_game["moves"][-1], now=NOON)
    assert known.status == Game.Status.FINISHED and len(checks) == 1


def test_knowing_someone_elses_game_does_not_let_anyone_move_it(player, other_player, winning_game, move_on_known):
    game = start_code_game(player, winning_game["deal_code"])
    with pytest.raises(NotYourGame):
        move_on_known(known=services.KnownGame.of(game), player=other_player, move=winning_game["moves"][0], now=NOON)
    assert Game.objects.get(pk=game.pk).version == 1


def test_a_move_on_a_game_known_before_it_was_finished_is_refused(player, winning_game, move_on_known):
    game = start_code_game(player, winning_game["deal_code"])
    game_finish(game_id=game.pk, player=player, moves=[], now=NOON)  # ended over REST meanwhile
    with pytest.raises(GameFinished):
        move_on_known(known=services.KnownGame.of(game), player=player, move=winning_game["moves"][0], now=NOON)
    assert Game.objects.get(pk=game.pk).version == 2


@pytest.mark.django_db(transaction=True)
def test_players_moving_their_own_games_at_the_same_moment_all_have_their_moves_stored(winning_game):
    """The sockets' database threads write at once; on SQLite (the embedded default) none may be turned
    away with "database is locked"."""
    players = [Player.objects.create(nickname=f"Racer {index}") for index in range(6)]
    games = [start_code_game(player, winning_game["deal_code"]) for player in players]
    line = winning_game["moves"][:8]
    failures: list[Exception] = []
    ready = threading.Barrier(len(games))

    def play(game: Game, player: Player) -> None:
        try:
            ready.wait()
            for move in line:
                game_move(game_id=game.pk, player=player, move=move, now=NOON)
        except Exception as error:
            failures.append(error)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=play, args=pair) for pair in zip(games, players, strict=True)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert failures == []
    assert [Game.objects.get(pk=game.pk).moves for game in games] == [line] * len(games)
