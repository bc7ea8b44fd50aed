"""The migration that brings in the ranked-slot ledger carries over the ranked attempts already taken
from each address, so an address's allowance for the day in progress goes on counting them."""

from __future__ import annotations

import datetime

from games import engine
from tests.schema import migrate, newest_migrations

NOON = datetime.datetime(2026, 11, 20, 12, tzinfo=datetime.UTC)


def test_every_attempt_taken_from_an_address_becomes_a_slot_of_that_address(schema_restored):
    accounts = next(node for node in newest_migrations() if node[0] == "accounts")
    old = migrate([("games", "0007_events_by_game_and_version_only"), accounts])
    Player, Deal, Game = (
        old.get_model(*name) for name in (("accounts", "Player"), ("games", "Deal"), ("games", "Game"))
    )
    ada = Player.objects.create(nickname="Ada", nickname_key="ada")
    bea = Player.objects.create(nickname="Bea", nickname_key="bea")
    deal = Deal.objects.create(cards=engine.deal_from_code(engine.new_deal_code()), daily_date=NOON.date())

    def game(player, *, ranked, address_key):
        return Game.objects.create(
            player=player, deal=deal, mode="daily", ranked=ranked, address_key=address_key, started_at=NOON
        ).pk

    attempt = game(ada, ranked=True, address_key="a" * 64)
    # A second attempt demoted when a guest's games joined an account keeps the address it came from.
    demoted = game(bea, ranked=False, address_key="a" * 64)
    game(ada, ranked=False, address_key="")  # practice: no slot

    new = migrate([("games", "0008_ranked_slots")])
    slots = new.get_model("games", "RankedSlot").objects.order_by("game_id")
    assert list(slots.values_list("game_id", "player_id", "deal_id", "address_key", "own_slot", "taken_at")) == [
        (attempt, ada.pk, deal.pk, "a" * 64, False, NOON),
        (demoted, bea.pk, deal.pk, "a" * 64, False, NOON),
    ]
