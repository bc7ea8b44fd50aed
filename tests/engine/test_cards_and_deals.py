"""Cards, deal validation, the daily deal and deal codes."""

from __future__ import annotations

import datetime
import hashlib
import hmac
import re

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from games.engine import (
    DECK,
    DealCodeTypo,
    cards_match,
    certified_daily_deal,
    checked_deal_code,
    daily_deal,
    daily_seed,
    deal_from_code,
    format_deal_code,
    new_deal_code,
    normalize_deal_code,
    seed_commitment,
    validate_deal,
)
from games.engine.deals import CODE_ALPHABET

CODE_SHAPE = re.compile(r"^[23456789A-HJ-NP-Z]{4}-[23456789A-HJ-NP-Z]{4}$")


def documented_deal(seed_text: str) -> list[str]:
    """The derivation exactly as docs/rules.md states it, written separately from games.engine.deals."""
    deck = [rank + suit for suit in "CDHS" for rank in "A23456789TJQK"]
    words: list[int] = []
    block = 0

    def next_word() -> int:
        nonlocal block
        if not words:
            digest = hashlib.sha256(f"{seed_text}/{block}".encode()).digest()
            words.extend(int.from_bytes(digest[k : k + 4], "big") for k in range(0, 32, 4))
            block += 1
        return words.pop(0)

    for i in range(51, 0, -1):
        span = i + 1
        limit = 2**32 - 2**32 % span
        word = next_word()
        while word >= limit:
            word = next_word()
        j = word % span
        deck[i], deck[j] = deck[j], deck[i]
    return deck


# --- cards -------------------------------------------------------------------------------------------


def test_the_deck_holds_52_distinct_cards_in_two_character_notation():
    assert len(set(DECK)) == 52
    assert all(len(card) == 2 and card[0] in "A23456789TJQK" and card[1] in "CDHS" for card in DECK)


@pytest.mark.parametrize(
    ("left", "right", "expected"),
    [
        ("TD", "TS", True),  # same rank
        ("TD", "2D", True),  # same suit
        ("TD", "JS", False),  # neither
        ("AC", "KD", False),
        ("KH", "KH", True),
    ],
)
def test_cards_match_when_they_share_a_rank_or_a_suit(left, right, expected):
    assert cards_match(left, right) is expected
    assert cards_match(right, left) is expected


# --- deal validation ---------------------------------------------------------------------------------


def test_a_shuffled_full_deck_is_a_valid_deal():
    deal = deal_from_code("2222-2222")
    assert validate_deal(deal) == tuple(deal)


@pytest.mark.parametrize(
    "deal",
    [
        list(DECK[:51]),
        list(DECK) + ["AC"],
        list(DECK[:51]) + ["AC"],
        ["ac"] + list(DECK[1:]),
        ["10C"] + list(DECK[1:]),
        [None] + list(DECK[1:]),
        [[["AC"]]] + list(DECK[1:]),
        "".join(DECK),
        None,
        52,
        set(DECK),
        {card: card for card in DECK},
    ],
    ids=[
        "51 cards",
        "53 cards",
        "a duplicate",
        "lower case",
        "a ten written 10",
        "a null card",
        "a nested card",
        "one string",
        "null",
        "a number",
        "a set",
        "a dict",
    ],
)
def test_a_deal_that_is_not_52_distinct_valid_cards_is_refused_with_value_error(deal):
    with pytest.raises(ValueError):
        validate_deal(deal)


def test_a_refused_deal_says_which_card_appears_twice():
    with pytest.raises(ValueError, match="AC appears twice"):
        validate_deal(list(DECK[:51]) + ["AC"])


def test_a_deal_holding_unprintable_junk_still_gets_a_short_error_message():
    nested: list[object] = ["AC"]
    for _ in range(50_000):
        nested = [nested]
    for junk in (nested, 10**5000, "x" * 1_000_000):
        with pytest.raises(ValueError) as caught:
            validate_deal([junk] + list(DECK[1:]))
        assert len(str(caught.value)) < 300


# --- the daily deal ----------------------------------------------------------------------------------

SECRET = "example secret: never use it on a server"  # the one of docs/rules.md and tests/vectors/deals.json
DAY = datetime.date(2026, 11, 30)
DAY_SEED = daily_seed(DAY, secret=SECRET)


def test_a_days_seed_is_hmac_sha256_of_the_date_under_the_secret_as_docs_rules_says():
    expected = hmac.new(SECRET.encode(), b"daily:2026-11-30", hashlib.sha256).hexdigest()
    assert DAY_SEED == expected == "3581e75fbc270811bf4a95596990f441ae5b20c4bf18065e6581a6766f3aecc4"


def test_without_the_secret_the_seed_and_so_the_deal_cannot_be_computed():
    other = daily_seed(DAY, secret="another secret")
    assert other != DAY_SEED and daily_deal(DAY, other) != daily_deal(DAY, DAY_SEED)
    assert all(daily_deal(DAY, DAY_SEED) != documented_deal(f"daily:{DAY.isoformat()}:{n}") for n in range(3))


def test_the_commitment_is_the_sha256_of_the_seed():
    assert seed_commitment(DAY_SEED) == hashlib.sha256(DAY_SEED.encode()).hexdigest()


@pytest.mark.parametrize("secret", ["", None, b"bytes"])
def test_a_missing_secret_is_a_value_error(secret):
    with pytest.raises(ValueError, match="secret"):
        daily_seed(DAY, secret=secret)


@pytest.mark.parametrize("seed", ["", "xyz", DAY_SEED.upper(), DAY_SEED[:-1], None, 5])
def test_a_seed_that_is_not_64_lower_case_hex_digits_is_a_value_error(seed):
    with pytest.raises(ValueError, match="seed"):
        daily_deal(DAY, seed)


def test_the_daily_deal_is_the_same_every_time_for_a_date_and_its_seed():
    assert daily_deal(DAY, DAY_SEED) == daily_deal(DAY, DAY_SEED)


def test_the_daily_deal_of_2026_11_30_starts_and_ends_as_documented_in_docs_rules():
    deal = daily_deal(DAY, DAY_SEED)
    assert deal[:8] == ["9S", "KC", "TH", "QH", "8D", "TS", "KS", "3S"]
    assert deal[-4:] == ["JH", "AC", "5H", "AH"]


def test_consecutive_days_get_different_deals():
    dates = [DAY + datetime.timedelta(days=n) for n in range(30)]
    assert len({tuple(daily_deal(date, daily_seed(date, secret=SECRET))) for date in dates}) == 30


def test_a_datetime_gives_the_deal_of_its_date():
    moment = datetime.datetime(2026, 11, 30, 23, 59, 59, tzinfo=datetime.UTC)
    assert daily_seed(moment, secret=SECRET) == DAY_SEED
    assert daily_deal(moment, DAY_SEED) == daily_deal(DAY, DAY_SEED)


@pytest.mark.parametrize("junk", ["2026-11-30", None, 20261130])
def test_the_daily_deal_of_something_that_is_not_a_date_is_a_value_error(junk):
    with pytest.raises(ValueError):
        daily_deal(junk, DAY_SEED)
    with pytest.raises(ValueError):
        daily_seed(junk, secret=SECRET)


# Deriving a daily deal runs the solver to certify it, so these draw fewer dates and have no deadline.
@settings(max_examples=25, deadline=None)
@given(st.dates())
def test_every_daily_deal_is_a_shuffle_of_the_whole_deck(date):
    deal = daily_deal(date, daily_seed(date, secret=SECRET))
    assert sorted(deal) == sorted(DECK)


@settings(max_examples=25, deadline=None)
@given(st.dates(min_value=datetime.date(2000, 1, 1), max_value=datetime.date(2100, 12, 31)))
def test_the_daily_deal_follows_the_derivation_in_docs_rules(date):
    seed = daily_seed(date, secret=SECRET)
    attempt = certified_daily_deal(date, seed).attempt
    assert daily_deal(date, seed) == documented_deal(f"daily:{date.isoformat()}:{seed}:{attempt}")


# --- deal codes --------------------------------------------------------------------------------------


def test_a_deal_code_gives_the_same_deal_however_it_is_typed():
    expected = deal_from_code("K7QD-M2XP")
    for spelling in ("K7QDM2XP", "k7qd-m2xp", " k7qd m2xp ", "K7QD - M2XP"):
        assert deal_from_code(spelling) == expected


def test_the_deal_of_code_2222_2222_starts_as_documented_in_docs_rules():
    assert deal_from_code("2222-2222")[:8] == ["9S", "KH", "JH", "KD", "3C", "2H", "JS", "4C"]


def test_codes_one_symbol_apart_name_different_deals():
    assert deal_from_code("2222-2222") != deal_from_code("2222-2223")


@given(st.text(alphabet=CODE_ALPHABET, min_size=8, max_size=8))
def test_the_deal_of_a_code_follows_the_derivation_in_docs_rules(code):
    deal = deal_from_code(code)
    assert deal == documented_deal(f"code:{code}")
    assert sorted(deal) == sorted(DECK)


def test_a_code_is_shown_as_two_groups_of_four():
    assert format_deal_code("k7qdm2xp") == "K7QD-M2XP"


@pytest.mark.parametrize(
    "code",
    ["", "2222-222", "2222-22222", "0000-0000", "OOOO-1111", "IIII-IIII", "2222_2222", "2222+2222"],
)
def test_text_that_is_not_a_deal_code_is_refused(code):
    with pytest.raises(ValueError, match="not a deal code"):
        deal_from_code(code)


@pytest.mark.parametrize(
    "junk",
    [None, 22222222, ["2222-2222"], b"2222-2222", 10**5000],
    ids=["null", "a number", "a list", "bytes", "a 5000-digit number"],
)
def test_a_deal_code_that_is_not_text_is_a_value_error(junk):
    with pytest.raises(ValueError):
        normalize_deal_code(junk)


@given(st.text(max_size=40))
def test_any_text_either_normalizes_to_a_valid_code_or_is_a_value_error(text):
    try:
        canonical = normalize_deal_code(text)
    except ValueError as error:
        assert len(str(error)) < 300
    else:
        assert len(canonical) == 8 and set(canonical) <= set(CODE_ALPHABET)


def test_a_new_deal_code_is_shown_in_display_form_and_names_a_deal():
    code = new_deal_code()
    assert CODE_SHAPE.match(code), code
    assert sorted(deal_from_code(code)) == sorted(DECK)


def test_a_code_is_shared_with_its_check_symbol_as_docs_rules_works_it_out():
    assert checked_deal_code("k7qdm2xp") == "K7QD-M2XP-X"
    assert checked_deal_code("2222-2222") == "2222-2222-Z"


@given(st.text(alphabet=CODE_ALPHABET, min_size=8, max_size=8))
def test_a_checked_code_and_its_eight_symbols_as_first_shared_name_the_same_deal(code):
    checked = checked_deal_code(code)
    assert normalize_deal_code(checked) == normalize_deal_code(code) == code
    assert deal_from_code(checked) == deal_from_code(code)


@given(
    st.text(alphabet=CODE_ALPHABET, min_size=8, max_size=8),
    st.integers(min_value=0, max_value=8),
    st.sampled_from(CODE_ALPHABET),
)
def test_any_one_mistyped_symbol_of_a_checked_code_is_refused_and_the_meant_code_is_among_the_corrections(
    code, place, symbol
):
    symbols = checked_deal_code(code).replace("-", "")
    assume(symbols[place] != symbol)
    slipped = symbols[:place] + symbol + symbols[place + 1 :]
    with pytest.raises(DealCodeTypo, match="mistyped") as refused:
        deal_from_code(slipped)
    assert code in refused.value.corrections


@given(st.text(alphabet=CODE_ALPHABET, min_size=8, max_size=8), st.integers(min_value=0, max_value=7))
def test_two_neighbours_swapped_are_refused_unless_they_are_z_and_2(code, place):
    symbols = checked_deal_code(code).replace("-", "")
    assume(symbols[place] != symbols[place + 1] and {symbols[place], symbols[place + 1]} != {"Z", "2"})
    swapped = symbols[:place] + symbols[place + 1] + symbols[place] + symbols[place + 2 :]
    with pytest.raises(DealCodeTypo) as refused:
        normalize_deal_code(swapped)
    assert code in refused.value.corrections


def test_a_wrong_check_symbol_lists_the_check_symbols_correction_first():
    with pytest.raises(DealCodeTypo) as refused:
        normalize_deal_code("K7QD-M2XP-Y")
    assert refused.value.corrections[0] == "K7QDM2XP"


def test_new_deal_codes_are_random():
    assert len({new_deal_code() for _ in range(20)}) == 20
