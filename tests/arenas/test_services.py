"""Arena services: the deal sequence, scoring (fire, ties, a game in play at the end, review), refusals."""

from __future__ import annotations

import datetime
from typing import Any

import pytest
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from accounts.models import Player
from arenas import deals, selectors, services
from arenas.errors import ArenaError, ArenaFinished, GameInPlay, NotParticipant
from arenas.models import Arena, ArenaGame, Participant
from games import engine, history
from games import services as game_services
from games.engine.deals import seed_commitment
from games.engine.scoring import WIN_BONUS
from games.models import Game
from tests.games.row_locks import transaction_held

from .conftest import current_game, first_games, lose, win

pytestmark = pytest.mark.django_db


def soon(seconds: float = 1) -> datetime.datetime:
    return timezone.now() + datetime.timedelta(seconds=seconds)


def next_game(arena: Arena, player: Player) -> Game:
    return services.arena_next(code=arena.code, player=player, now=timezone.now())


def row(arena: Arena, player: Player) -> dict[str, object]:
    return selectors.standings(arena_id=arena.pk).by_player[player.pk]


def test_deal_k_is_the_same_for_everyone_and_comes_from_the_committed_seed(
    player: Player, other_player: Player, live_arena: Arena
) -> None:
    first, others_first = first_games(live_arena, player, other_player)
    assert first.deal_id == others_first.deal_id
    # Anyone holding the published seed derives the deal, checks the commitment, and finds it winnable.
    assert seed_commitment(live_arena.seed) == live_arena.commitment
    derived = deals.certified_arena_deal(live_arena.seed, 1)
    assert list(derived.cards) == first.deal.cards
    assert engine.replay(first.deal.cards, [list(move) for move in derived.solution]).piles == 1
    lose(first, at=soon())
    second = next_game(live_arena, player)
    assert second.deal_id != first.deal_id
    assert second.deal.cards == list(deals.certified_arena_deal(live_arena.seed, 2).cards)


def test_a_process_reads_each_stored_deal_once(
    player: Player,
    other_player: Player,
    live_arena: Arena,
    settings: Any,
    monkeypatch: pytest.MonkeyPatch,
    django_capture_on_commit_callbacks: Any,
) -> None:
    """Hundreds of participants reach each deal within seconds: once this process has read a stored
    deal, the others' games start on it without reading it again, and it is not sent to be certified
    ahead again."""
    third = Player.objects.create(nickname="Lin")
    services.arena_join(code=live_arena.code, player=player, now=timezone.now())
    services.arena_join(code=live_arena.code, player=other_player, now=timezone.now())
    with CaptureQueriesContext(connection) as third_join:
        services.arena_join(code=live_arena.code, player=third, now=timezone.now())
    assert current_game(live_arena, third).deal_id == current_game(live_arena, player).deal_id
    assert not [query for query in third_join.captured_queries if "arenas_arenadeal" in query["sql"]]

    settings.ARENA_DEALS_AHEAD = True
    submitted: list[int] = []

    def certify_now(work: object, arena: Arena, k: int) -> None:
        submitted.append(k)
        services.arena_deal(arena=arena, k=k)

    monkeypatch.setattr(services._ahead, "submit", certify_now)
    for who in (player, other_player, third):
        lose(current_game(live_arena, who), at=soon())
        with django_capture_on_commit_callbacks(execute=True):
            next_game(live_arena, who)
    # Deal 3: derived for the first to reach deal 2, read for the second, and known by the third.
    assert submitted == [3, 3]


def test_the_seed_is_new_for_each_arena(player: Player) -> None:
    now = timezone.now()
    one = services.arena_create(created_by=player, minutes=5, starts_in=0, now=now)
    two = services.arena_create(created_by=player, minutes=5, starts_in=0, now=now)
    assert one.seed != two.seed and one.code != two.code


@pytest.mark.parametrize(("minutes", "starts_in"), [(0, 0), (500, 0), (121, 0), (True, 0), (5, -1), (5, 604801)])
def test_out_of_range_arenas_are_refused(player: Player, minutes: object, starts_in: object) -> None:
    with pytest.raises(ArenaError):
        services.arena_create(created_by=player, minutes=minutes, starts_in=starts_in, now=timezone.now())
    assert not Arena.objects.exists()


def test_a_finished_game_earns_its_normal_score(player: Player, live_arena: Arena) -> None:
    services.arena_join(code=live_arena.code, player=player, now=timezone.now())
    game = lose(current_game(live_arena, player), at=soon(), moves=4)
    assert row(live_arena, player)["points"] == game.score == 40
    won = win(next_game(live_arena, player), at=soon())
    assert (row(live_arena, player)["points"], row(live_arena, player)["wins"]) == (40 + (won.score or 0), 1)


def test_a_win_right_after_a_win_doubles_its_win_bonus(player: Player, live_arena: Arena) -> None:
    services.arena_join(code=live_arena.code, player=player, now=timezone.now())
    first = win(current_game(live_arena, player), at=soon())
    assert row(live_arena, player)["fire"] is True
    second = win(next_game(live_arena, player), at=soon(2))
    assert row(live_arena, player)["points"] == (first.score or 0) + (second.score or 0) + WIN_BONUS
    third = lose(next_game(live_arena, player), at=soon(3), moves=2)
    assert row(live_arena, player)["fire"] is False
    fourth = win(next_game(live_arena, player), at=soon(4))  # after a loss: no fire
    counted = [(game.k, game.points, game.fire) for game in ArenaGame.objects.order_by("k")]
    assert counted == [
        (1, first.score, False),
        (2, (second.score or 0) + WIN_BONUS, True),
        (3, third.score, False),
        (4, fourth.score, False),
    ]


def test_ties_go_to_whoever_reached_the_total_first(player: Player, other_player: Player, live_arena: Arena) -> None:
    for who in (player, other_player):
        services.arena_join(code=live_arena.code, player=who, now=timezone.now())
    lose(current_game(live_arena, other_player), at=soon(1), moves=3)
    lose(current_game(live_arena, player), at=soon(2), moves=3)
    table = selectors.standings(arena_id=live_arena.pk)
    assert [(entry["nickname"], entry["points"], entry["rank"]) for entry in table.rows] == [
        ("Grace", 30, 1),
        ("Ada", 30, 2),
    ]


def test_a_game_held_for_review_counts_only_once_cleared(player: Player, live_arena: Arena) -> None:
    services.arena_join(code=live_arena.code, player=player, now=timezone.now())
    game = win(current_game(live_arena, player), at=soon())
    Game.objects.filter(pk=game.pk).update(review=Game.Review.PENDING)
    services.arena_games_restanded(game_ids=[game.pk])
    assert (row(live_arena, player)["points"], row(live_arena, player)["games"]) == (0, 0)
    game_services.games_review(
        game_ids=[game.pk], decision=Game.Review.CLEARED, reason="a fast player", reviewer=None, now=soon()
    )
    assert (row(live_arena, player)["points"], row(live_arena, player)["games"]) == (game.score, 1)


def test_a_game_confirmed_by_review_never_counts(player: Player, live_arena: Arena) -> None:
    services.arena_join(code=live_arena.code, player=player, now=timezone.now())
    game = win(current_game(live_arena, player), at=soon())
    Game.objects.filter(pk=game.pk).update(review=Game.Review.PENDING)
    game_services.games_review(
        game_ids=[game.pk], decision=Game.Review.CONFIRMED, reason="a script", reviewer=None, now=soon()
    )
    assert row(live_arena, player)["points"] == 0


def test_a_game_in_play_at_the_end_counts_as_it_stood(player: Player, live_arena: Arena) -> None:
    services.arena_join(code=live_arena.code, player=player, now=timezone.now())
    game = current_game(live_arena, player)
    assert game.deal.solution is not None
    for move in game.deal.solution[:5]:
        game_services.game_move(game_id=game.pk, player=player, move=move, now=timezone.now())
    ends_at = timezone.now()
    Arena.objects.filter(pk=live_arena.pk).update(ends_at=ends_at)
    # A move after the end does not count: the game is finished as it stood at the end.
    game_services.game_move(game_id=game.pk, player=player, move=game.deal.solution[5], now=soon())
    assert services.arena_end(code=live_arena.code, now=soon(2)) is True
    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED and game.piles == 47
    assert (row(live_arena, player)["points"], row(live_arena, player)["games"]) == (50, 1)
    assert services.arena_end(code=live_arena.code, now=soon(3)) is False


def test_a_game_finished_after_the_end_counts_as_it_stood_once_its_events_are_compacted(
    player: Player, live_arena: Arena
) -> None:
    services.arena_join(code=live_arena.code, player=player, now=timezone.now())
    game = current_game(live_arena, player)
    assert game.deal.solution is not None
    for move in game.deal.solution[:5]:
        game_services.game_move(game_id=game.pk, player=player, move=move, now=timezone.now())
    Arena.objects.filter(pk=live_arena.pk).update(ends_at=timezone.now())
    assert services.arena_end(code=live_arena.code, now=soon(2)) is True
    assert history.compact_games(today=timezone.now().date(), batch=10, limit=None)[0] == 1
    participant = Participant.objects.get(player=player)
    assert (services.participant_recount(participant_id=participant.pk).points, row(live_arena, player)["points"]) == (
        50,
        50,
    )


def test_an_arena_not_over_is_not_ended(player: Player, live_arena: Arena) -> None:
    assert services.arena_end(code=live_arena.code, now=timezone.now()) is False
    assert services.arenas_end(now=timezone.now()) == []


def test_next_is_refused_while_a_game_is_in_play(player: Player, live_arena: Arena) -> None:
    services.arena_join(code=live_arena.code, player=player, now=timezone.now())
    with pytest.raises(GameInPlay):
        next_game(live_arena, player)
    assert Participant.objects.get(player=player).reached == 1
    assert ArenaGame.objects.count() == 1


def test_no_one_outside_the_arena_gets_a_game(other_player: Player, live_arena: Arena) -> None:
    with pytest.raises(NotParticipant):
        next_game(live_arena, other_player)
    with pytest.raises(NotParticipant):
        services.arena_next(code=live_arena.code, player=None, now=timezone.now())


def test_joining_or_next_after_the_end_is_refused(player: Player, live_arena: Arena) -> None:
    services.arena_join(code=live_arena.code, player=player, now=timezone.now())
    lose(current_game(live_arena, player), at=soon())
    after = live_arena.ends_at + datetime.timedelta(seconds=1)
    with pytest.raises(ArenaFinished):
        services.arena_join(code=live_arena.code, player=player, now=after)
    with pytest.raises(ArenaFinished):
        services.arena_next(code=live_arena.code, player=player, now=after)


def test_an_arena_deal_gives_no_hint_in_a_practice_game_before_the_end(player: Player, live_arena: Arena) -> None:
    services.arena_join(code=live_arena.code, player=player, now=timezone.now())
    code = current_game(live_arena, player).deal.shared_code
    practice, _ = game_services.game_start(player=player, mode=Game.Mode.CODE, code=code, now=timezone.now())
    assert practice.deal_id == current_game(live_arena, player).deal_id
    with pytest.raises(game_services.LinesWithheld, match="arena"):
        game_services.game_hint(game_id=practice.pk, player=player, accept_unranked=True, now=timezone.now())


def test_a_players_arenas_and_the_results_list_every_game(player: Player, live_arena: Arena) -> None:
    services.arena_join(code=live_arena.code, player=player, now=timezone.now())
    lose(current_game(live_arena, player), at=soon(), moves=1)
    next_game(live_arena, player)
    [seat] = selectors.player_arenas(player=player)
    assert (seat["arena"].code, seat["rank"], seat["participant"].points) == (live_arena.code, 1, 10)
    [result] = selectors.arena_results(arena=live_arena)
    assert [(game.k, game.points) for game in result["arena_games"]] == [(1, 10), (2, None)]


def test_a_result_the_assessment_holds_at_the_finish_counts_nothing(
    player: Player, live_arena: Arena, settings: object
) -> None:
    settings.FAIR_PLAY_REVIEW_RISK = 50  # type: ignore[attr-defined]
    services.arena_join(code=live_arena.code, player=player, now=timezone.now())
    # A whole winning line posted a second after the deal came: timing no person has.
    game = win(current_game(live_arena, player), at=soon())
    assert game.review == Game.Review.PENDING
    assert (row(live_arena, player)["points"], row(live_arena, player)["games"]) == (0, 0)


@pytest.mark.django_db(transaction=True)
def test_a_finish_does_not_wait_for_another_participants_finish_in_the_same_arena(
    postgres: None, player: Player, other_player: Player, live_arena: Arena
) -> None:
    first, second = first_games(live_arena, player, other_player)
    # Another request's finish, its transaction still open after the recount.
    with transaction_held(lambda: lose(first, at=soon())), transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("SET LOCAL lock_timeout = '2s'")  # waiting behind the other finish fails the test
        lose(second, at=soon())
    assert row(live_arena, player)["games"] == row(live_arena, other_player)["games"] == 1
