"""The Persian catalogue covers every message of the templates, the Python code and the page JavaScript:
a string added without its translation fails here, before a Persian player meets English."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from django.conf import settings
from django.core.management import call_command
from django.test import Client, override_settings
from django.urls import reverse
from django.utils import translation

LOCALE = Path(settings.BASE_DIR) / "locale"
_FIELD = re.compile(r'^(msgid|msgid_plural|msgstr(?:\[\d\])?) "(.*)"$')


def _untranslated(po_file: Path) -> list[str]:
    """Messages of a .po file with an empty or fuzzy translation (the header excepted)."""
    found = []
    for entry in po_file.read_text(encoding="utf-8").split("\n\n"):
        fields: dict[str, str] = {}
        field = ""
        for line in entry.splitlines():
            if matched := _FIELD.match(line):
                field = matched[1]
                fields[field] = matched[2]
            elif line.startswith('"') and field:
                fields[field] += line.strip('"')
        translations = [text for name, text in fields.items() if name.startswith("msgstr")]
        fuzzy = re.search(r"^#,.*\bfuzzy\b", entry, re.M)
        if fields.get("msgid") and (fuzzy or not all(translations)):
            found.append(fields["msgid"])
    return found


@pytest.fixture
def fresh_catalogue(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A copy of locale/ brought up to date with the code by `makemessages`. It runs in a tree of links
    to the project's folders without its locale/, which it would otherwise write to."""
    copy = tmp_path / "locale"
    shutil.copytree(LOCALE, copy)
    source = tmp_path / "source"
    source.mkdir()
    for entry in Path(settings.BASE_DIR).iterdir():
        if entry.is_dir() and entry.name != "locale":
            (source / entry.name).symlink_to(entry)
    monkeypatch.chdir(source)
    with override_settings(LOCALE_PATHS=[copy]):
        call_command("update_translations", verbosity=0)
    return copy / "fa" / "LC_MESSAGES"


@pytest.mark.parametrize("domain", ["django", "djangojs"])
def test_every_message_of_the_code_has_a_persian_translation(fresh_catalogue: Path, domain: str) -> None:
    assert _untranslated(fresh_catalogue / f"{domain}.po") == []


def test_the_committed_persian_catalogue_has_no_untranslated_message() -> None:
    assert [path.name for path in LOCALE.glob("fa/LC_MESSAGES/*.po") if _untranslated(path)] == []


def test_undo_reads_vaagard_in_persian() -> None:
    with translation.override("fa"):
        assert translation.gettext("Undo") == "واگرد"


@pytest.mark.django_db
def test_the_page_scripts_say_good_game_in_persian(client: Client) -> None:
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = "fa"
    catalogue = client.get(reverse("javascript-catalog")).content.decode()
    assert json.dumps("بازی خوبی بود!")[1:-1] in catalogue


@pytest.mark.django_db
def test_a_persian_browser_gets_a_right_to_left_persian_page(client: Client) -> None:
    page = client.get(reverse("home"), headers={"accept-language": "fa-IR,fa;q=0.9,en;q=0.5"}).content.decode()
    assert '<html lang="fa" dir="rtl">' in page
    assert "دست روزانه" in page


@pytest.mark.django_db
def test_the_language_chosen_on_the_page_is_remembered(client: Client) -> None:
    client.post(reverse("set_language"), {"language": "fa", "next": "/"})
    page = client.get(reverse("home"), headers={"accept-language": "en"}).content.decode()
    assert 'lang="fa"' in page
