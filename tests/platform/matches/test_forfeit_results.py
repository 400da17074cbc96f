"""A forfeit reads as one: the match lists say who forfeited, how and when ("forfeit: your bot crashed before
its first move (exited: …)") instead of a bare "random-bura won 0 – 0 · fewer penalty points", and a result
is coloured by how it went for the reader's own bot, never green because somebody won (issue 36)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from bots import blobs
from bots.actions import house_version
from bots.models import Bot, BotVersion
from matches import actions
from matches.models import Match
from play.tasks import play_match

CRASH = Path(__file__).resolve().parents[2] / "data" / "bots" / "crash.py"


@pytest.fixture
def crashed(alice, bura_bot) -> Match:
    """A finished ladder match that alice's bot forfeited by crashing at its first request."""
    version = BotVersion.objects.create(bot=bura_bot, number=1, sha256=blobs.put("bots", CRASH.read_bytes()),
                                        filename="crash.py", entry=["python3", "crash.py"], runtime="python3",
                                        status="ready")
    Bot.objects.filter(pk=bura_bot.pk).update(current_version=version)
    match = actions.create_match(kind="ladder", preset="bura", ranked=True, overrides={"match": "deals:1"},
                                 seat_versions=[version, house_version("bura", "random")])
    assert play_match(match.pk) == "finished"
    return match


def result_cell(html: str, match: Match) -> tuple[str, str]:
    """(data-result, the cell's text) of the match's row in a match table."""
    row = re.search(rf'<a href="/matches/{match.pk}/">{match.pk}</a>.*?</tr>', html, re.S).group(0)
    cell = re.search(r'<td data-result="(\w+)" class="status-finished">(.*?)</td>', row, re.S)
    return cell.group(1), re.sub(r"<[^>]+>", "", cell.group(2))


def test_it_says_your_bot_forfeited_and_colours_the_result_as_your_loss(client, alice, crashed):
    client.force_login(alice)
    result, text = result_cell(client.get("/bots/alice-bura/").content.decode(), crashed)
    assert result == "lost"
    assert "forfeit: your bot crashed before its first move (exited: the bot exited with code 3" in text, text
    assert "fewer penalty points" not in text and "0 – 0" not in text


def test_another_reader_sees_the_bots_name_and_no_colour_of_a_side(client, crashed):
    result, text = result_cell(client.get("/bots/alice-bura/").content.decode(), crashed)
    assert result == "other"
    assert "forfeit: alice-bura crashed before its first move" in text, text


def test_the_winner_reads_it_as_a_win(client, crashed):
    from accounts.models import User

    house = Bot.objects.get(name="random-bura").owner
    client.force_login(User.objects.get(pk=house.pk))
    result, _ = result_cell(client.get("/").content.decode(), crashed)
    assert result == "won"


def test_the_match_page_says_the_forfeit_in_words(client, alice, crashed):
    client.force_login(alice)
    html = client.get(f"/matches/{crashed.pk}/").content.decode()
    outcome = re.search(r'<p class="outcome" id="outcome">(.*?)</p>', html, re.S).group(1)
    assert "Forfeit: your bot crashed before its first move" in outcome, outcome
