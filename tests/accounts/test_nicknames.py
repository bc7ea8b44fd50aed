"""The nickname rule: what a player may be called, and when two nicknames are the same one."""

from __future__ import annotations

import re

import pytest

from accounts.nicknames import NicknameRuleError, nickname_clean, nickname_key


@pytest.mark.parametrize(
    "nickname",
    ["Ada", "ada_lovelace-1815", "علیرضا", "مریم۱۳۷۰", "राम", "Ñandú", "x" * 20, "-_-", "Олег", "علي-Ali"],
)
def test_letters_of_any_script_digits_underscore_and_dash_make_a_nickname(nickname):
    assert nickname_clean(nickname) == nickname


def test_a_nickname_is_trimmed():
    assert nickname_clean("  Ada \t") == "Ada"


def test_full_width_letters_are_stored_as_plain_ones():
    assert nickname_clean("\uff21\uff44\uff41") == "Ada"


@pytest.mark.parametrize(
    ("nickname", "reason"),
    [
        ("Al", "at least 3"),
        ("x" * 21, "at most 20"),
        ("Ada Lovelace", "no spaces"),
        ("Ada\u00a0Lovelace", "no spaces"),
        ("<script>", "not '<'"),
        ('Ada"', "not '\"'"),
        ("Ada'", 'not "\'"'),
        ("\u202eAda", "U+202E"),
        ("Ada\u2066x", "U+2066"),
        ("ab\u200dc", "U+200D"),
        ("Ada🂡", "not '🂡'"),
        ("\u0301Ada", "not"),
        ("\u0410da", "may not mix Latin, Cyrillic, Greek"),  # "Ada" with a Cyrillic capital A
        ("\u03a114x", "may not mix"),  # a Greek capital Rho beside a Latin x
        ("B\u0585b", "may not mix"),  # an Armenian small oh in "Bob"
        ("\u13aada", "may not mix"),  # a Cherokee letter that looks like A, in "Ada"
        ("Bob\u034f", "U+034F"),  # invisible, though Unicode counts it a combining mark
        ("Bob\ufe0f", "U+FE0F"),
        ("Bob\U000e0100", "U+E0100"),
        ("Bob\u180b", "U+180B"),
        ("\u3164Bob", "U+1160"),  # a Hangul filler, a letter that draws nothing (NFKC makes it U+1160)
    ],
)
def test_anything_else_is_refused_with_the_reason(nickname, reason):
    with pytest.raises(NicknameRuleError, match=re.escape(reason)):
        nickname_clean(nickname)


@pytest.mark.parametrize(
    ("one", "other"),
    [
        ("Ada", "ADA"),
        ("Ada", "\uff21\uff44\uff41"),
        ("Strasse", "STRAßE"),
        ("علي", "علی"),
        ("كاوه", "کاوه"),
        ("ali123", "ali\u06f1\u06f2\u06f3"),
    ],
)
def test_nicknames_that_differ_only_in_case_width_or_look_alike_letters_are_the_same(one, other):
    assert nickname_key(one) == nickname_key(other)


def test_different_nicknames_have_different_keys():
    assert nickname_key("Ada") != nickname_key("Adam")
