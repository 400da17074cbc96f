"""A refused bot name says what is wrong with that name (the character, the length, the first character), in
the API and on the new-bot page, instead of repeating the rule; the rule itself is the model's validator."""

from __future__ import annotations

import html
import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bots.models import NAME_HELP, NAME_RULE, Bot, name_problem


@pytest.mark.parametrize(("name", "words"), [
    ("Жадина", "'Ж' is a letter of another script: use Latin letters A–Z and a–z"),
    ("gréedy", "'é' is a letter of another script"),
    ("has space", "U+0020 is not allowed"),
    ("slash/name", "'/' is not allowed"),
    ("a", "it has 1 character; a name has 2–40"),
    ("n" * 41, "it has 41 characters; a name has 2–40"),
    ("-dash-first", "it starts with '-'; start with a Latin letter or a digit"),
])
def test_a_refused_name_names_its_fault(name, words):
    assert words in name_problem(name)


@given(st.text(alphabet=st.characters(codec="utf-8"), max_size=45) | st.from_regex(NAME_RULE, fullmatch=True))
def test_the_words_agree_with_the_models_validator(name):
    assert (name_problem(name) is None) == bool(re.match(NAME_RULE, name))


def test_the_api_says_which_character_is_wrong(alice, as_user, house_bots):
    answer = as_user(alice).post("/api/v1/bots/", {"name": "Бура-бот", "game": "bura"}, format="json")
    assert answer.status_code == 400, answer.json()
    message = answer.json()["error"]["fields"]["name"][0]
    assert "'Б' is a letter of another script" in message and NAME_HELP not in message
    assert not Bot.objects.filter(owner=alice).exists()


def test_the_new_bot_page_shows_the_fault_once_and_asks_for_the_file_again(alice, client, house_bots):
    from django.core.files.uploadedfile import SimpleUploadedFile

    from tests.platform.conftest import python_bot

    client.force_login(alice)
    page = client.post("/bots/new/", {"name": "ёжик", "game": "bura",
                                      "file": SimpleUploadedFile("main.py", python_bot("bura"))})
    text = html.unescape(page.content.decode())
    assert page.status_code == 200 and "'ё' is a letter of another script" in text
    assert "choose main.py again" in text  # a browser never keeps a chosen file after an error
    assert not Bot.objects.filter(owner=alice).exists()
