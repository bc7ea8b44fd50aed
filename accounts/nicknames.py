"""The nickname rule, as pure functions (no Django): what a nickname may be, and the key that decides
when two nicknames are the same one.

A nickname is 3 to 20 characters after trimming: letters of any script (with their combining marks),
digits, `_` and `-`, never mixing the Latin, Cyrillic, Greek, Armenian and Cherokee alphabets (their
look-alike letters would let "Ada" with a Cyrillic capital A, U+0410, pass for "Ada"), and nothing
invisible (Unicode's default-ignorable code points). It is stored in Unicode NFKC form, so full-width
or ligature look-alikes become plain letters. A guest's or a stand-in's form ("Guest-4821",
"Deleted-4821", in any of the site's languages) is kept for the site. Two nicknames are the same when
their keys are equal: NFKC, case-folded, every decimal digit read as its ASCII digit, the Arabic yeh
and kaf read as the Persian ones (keyboards type either, and they look the same), then Unicode's own
look-alike reading, the UTS #39 skeleton (ICU's SpoofChecker, from Unicode's confusables.txt, in any
script: "A1ice", Lisu "\ua4eelice" and Coptic "Ali\u2ca5e" are "Alice"), and, since case is folded and
a capital I looks like l, i, l and 1 read as one letter and 0 as o.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable

import icu
from django.utils.translation import gettext as _

from accordion_site.languages import local_number

NICKNAME_MIN_LENGTH = 3
NICKNAME_MAX_LENGTH = 20
# Case folding and NFKC can lengthen a string (ß → ss); this is room enough for 20 characters.
NICKNAME_KEY_MAX_LENGTH = 80

_SEPARATORS = frozenset("_-")
# Alphabets with letters that look alike (Latin a, Cyrillic U+0430, Greek U+03B1…): a nickname uses one
# of them at most, so "Ada" spelt with a Cyrillic capital A cannot pass for "Ada".
_LOOK_ALIKE_SCRIPTS = frozenset({"LATIN", "CYRILLIC", "GREEK", "ARMENIAN", "CHEROKEE"})
# Unicode's default-ignorable code points: drawn as nothing, so "Bob" and "Bob" + U+FE0F would look the
# same. Most are format characters, refused anyway; these ranges also catch the combining ones (variation
# selectors, the grapheme joiner) and the Hangul fillers, which count as marks or letters.
_INVISIBLE = (
    (0x00AD, 0x00AD), (0x034F, 0x034F), (0x061C, 0x061C), (0x115F, 0x1160), (0x17B4, 0x17B5),
    (0x180B, 0x180F), (0x200B, 0x200F), (0x202A, 0x202E), (0x2060, 0x206F), (0x3164, 0x3164),
    (0xFE00, 0xFE0F), (0xFEFF, 0xFEFF), (0xFFA0, 0xFFA0), (0xFFF0, 0xFFF8), (0x1BCA0, 0x1BCA3),
    (0x1D173, 0x1D17A), (0xE0000, 0xE0FFF),
)  # fmt: skip
_PERSIAN_LETTERS = str.maketrans({"\u064a": "\u06cc", "\u0649": "\u06cc", "\u0643": "\u06a9"})
# After case folding a capital I is an i, and it looks like l and 1 (which the skeleton reads as l).
_LOOK_ALIKES_ONCE_FOLDED = str.maketrans({"i": "l", "0": "o"})
# ICU's checker, whose skeleton is UTS #39's; it keeps no state between calls.
_SPOOF_CHECKER = icu.SpoofChecker()
# Migration accounts/0005 gave a later player whose nickname had become an older one's look-alike the key
# "<key>#<player id>": no nickname holds a "#", so no other nickname can have that key. A key is at most twice
# as long as its nickname (ß → ss), so the id fits within NICKNAME_KEY_MAX_LENGTH.
SET_APART = "#"


class NicknameRuleError(ValueError):
    """The text breaks the nickname rule; the message says how, for the person typing it."""


def _invisible(character: str) -> bool:
    code = ord(character)
    return any(low <= code <= high for low, high in _INVISIBLE)


def character_allowed(character: str, *, first: bool) -> bool:
    """Whether `character` may stand in a nickname (`first`: as its first character)."""
    if character in _SEPARATORS:
        return True
    if _invisible(character):
        return False
    category = unicodedata.category(character)
    if category.startswith("L") or category == "Nd":
        return True
    # A combining mark (a Devanagari vowel sign, an Arabic vowel) belongs to the letter before it.
    return category.startswith("M") and not first


def nickname_clean(text: str) -> str:
    """The nickname as it will be stored, or NicknameRuleError saying what is wrong with `text`."""
    nickname = unicodedata.normalize("NFKC", text).strip()
    if len(nickname) < NICKNAME_MIN_LENGTH:
        raise NicknameRuleError(
            _("a nickname needs at least %(least)s characters") % {"least": local_number(NICKNAME_MIN_LENGTH)}
        )
    if len(nickname) > NICKNAME_MAX_LENGTH:
        raise NicknameRuleError(
            _("a nickname has at most %(most)s characters") % {"most": local_number(NICKNAME_MAX_LENGTH)}
        )
    for index, character in enumerate(nickname):
        if character.isspace():
            raise NicknameRuleError(_("a nickname has no spaces: use _ or - between words"))
        if not character_allowed(character, first=index == 0):
            shown = character if character.isprintable() and not _invisible(character) else f"U+{ord(character):04X}"
            raise NicknameRuleError(
                _("a nickname may hold letters, digits, _ and - only, not %(character)r") % {"character": shown}
            )
    if len(_look_alike_scripts(nickname)) > 1:
        raise NicknameRuleError(
            _("a nickname may not mix Latin, Cyrillic, Greek, Armenian or Cherokee letters: they look alike")
        )
    return nickname


def _look_alike_scripts(nickname: str) -> set[str]:
    """Which of the look-alike alphabets the nickname's letters come from (by their Unicode names)."""
    scripts = {unicodedata.name(character, "").split(" ", 1)[0] for character in nickname if character.isalpha()}
    return scripts & _LOOK_ALIKE_SCRIPTS


def nickname_folded(nickname: str) -> str:
    """The nickname as spelt, whatever its case, width and digits: NFKC, case-folded, every decimal digit
    read as its ASCII digit, the Arabic yeh and kaf read as the Persian ones."""
    folded = unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", nickname).strip().casefold())
    digits_read = "".join(
        str(unicodedata.decimal(character)) if unicodedata.category(character) == "Nd" else character
        for character in folded
    )
    return digits_read.translate(_PERSIAN_LETTERS)


def _skeleton(text: str) -> str:
    return str(_SPOOF_CHECKER.getSkeleton(0, text))


def _folded_look_alikes(text: str) -> str:
    return text.casefold().translate(_LOOK_ALIKES_ONCE_FOLDED)


def nickname_key(nickname: str) -> str:
    """The form two nicknames are compared in: equal keys are the same nickname."""
    # First the skeleton of the capitals, since a small letter is the same nickname as its capital (so the
    # capital's look-alike is read for both: Cyrillic "\u0440\u0435\u0442\u0430" reads PETA), then of the
    # small letters that gives (Latin alpha reads a).
    capitals = _folded_look_alikes(_skeleton(nickname_folded(nickname).upper()))
    return unicodedata.normalize("NFC", _folded_look_alikes(_skeleton(capitals)))


_DIGIT_KEYS = frozenset(nickname_key("0123456789"))


def nickname_is_reserved(nickname: str, *, words: Iterable[str]) -> bool:
    """Whether the nickname reads as one the site makes: one of `words` ("Guest"), "-" and a number."""
    word, dash, number = nickname.rpartition("-")
    if not dash or not number:
        return False
    number_key = nickname_key(number)
    return nickname_key(word) in {nickname_key(reserved) for reserved in words} and all(
        character in _DIGIT_KEYS for character in number_key
    )


def nickname_key_set_apart(key: str, *, player_id: int) -> str:
    """The key of a player set apart from the older holder of `key` (see SET_APART)."""
    return f"{key}{SET_APART}{player_id}"
