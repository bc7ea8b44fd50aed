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
        ("\u03a114", "P14"),  # a Greek capital Rho
        ("\u0420\u0415\u0422\u0410", "PETA"),  # wholly Cyrillic
        ("\u0440\u0435\u0442\u0430", "PETA"),  # Cyrillic small letters, whose capitals look like PETA
        ("\u039d\u0395\u039f", "neo"),  # a Greek Nu is read as the N its capital looks like
        ("\u13b7\u13aa\u13a1\u13e6", "Mark"),  # wholly Cherokee
        ("\u0570\u0585\u0578", "hon"),  # wholly Armenian
        ("\u0251d\u0251", "ada"),  # Latin alphas
        ("\u0420\u0451\u0442\u043e", "P\u00ebto"),  # a Cyrillic io is an e with a diaeresis
        ("\u0386\u03a1\u0391", "\u00e1pa"),  # a Greek alpha with tonos is an a with an acute
        ("\u03a0\u0391\u03a0\u0391", "\u041f\u0410\u041f\u0410"),  # Greek and Cyrillic, like no Latin letter
        ("Alice", "AIice"),  # a capital i
        ("Alice", "A1ice"),
        ("Alice", "\ua4eelice"),  # a Lisu letter
        ("Alice", "Ali\u2ca5e"),  # a Coptic letter
        ("B0b", "Bob"),
    ],
)
def test_nicknames_that_differ_only_in_case_width_or_look_alike_letters_are_the_same(one, other):
    assert nickname_key(one) == nickname_key(other)


@pytest.mark.parametrize(
    ("one", "other"),
    [
        ("\u0394\u03b7\u03bc\u03ae\u03c4\u03c1\u03b7\u03c2", "Dimitris"),  # Greek and Latin spellings of a name
        ("\u041e\u043b\u0435\u0433", "Oleg"),
        ("\u0410\u043d\u043d\u0430", "Anna"),
        ("\u0393\u03b9\u03ce\u03c1\u03b3\u03bf\u03c2", "\u0415\u043b\u0435\u043d\u0430"),  # a Greek name, a Russian one
    ],
)
def test_names_in_those_alphabets_that_look_like_no_other_keep_their_own_keys(one, other):
    assert nickname_key(one) != nickname_key(other)


def test_different_nicknames_have_different_keys():
    assert nickname_key("Ada") != nickname_key("Adam")
