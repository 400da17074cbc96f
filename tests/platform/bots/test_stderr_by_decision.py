"""A bot's owner sees its stderr beside the decision that produced it; nobody else sees it at all."""

from __future__ import annotations

import re
from pathlib import Path

from bots.actions import house_version
from bots.models import BotVersion
from matches import actions
from matches.models import Seat
from play.tasks import play_match
from tests.platform.conftest import zip_of

BOTS = Path(__file__).resolve().parents[2] / "data" / "bots"


def test_it_serves_the_owners_stderr_by_request_and_hides_it_from_others(alice, bob, bura_bot, upload, client):
    answer = upload(alice, bura_bot.name, "bot.zip", zip_of({"main.py": (BOTS / "first_legal.py").read_bytes()}))
    assert answer.status_code == 201
    version = BotVersion.objects.get(bot=bura_bot, number=1)
    assert play_match(version.validation_match_id) == "finished"
    # A fixed seed: with a random one, two deals sometimes took seat 0 only three decisions.
    match = actions.create_match(kind="ladder", preset="bura", ranked=True, overrides={"match": "deals:2"},
                                 base_seed=11,
                                 seat_versions=[BotVersion.objects.get(pk=version.pk), house_version("bura", "random")])
    assert play_match(match.pk) == "finished"
    seat = Seat.objects.get(match=match, seat=0)
    assert seat.decisions > 3, seat.decisions

    client.force_login(alice)
    lines = client.get(f"/matches/{match.pk}/stderr/").json()["seats"]["0"]
    tagged = {int(request): texts for request, texts in lines.items() if request.isdigit()}
    # the bot writes "played request N" and flushes it before answering request N: every line is on its own N
    said = [(request, int(re.search(r"\d+", text).group())) for request, texts in tagged.items() for text in texts]
    assert len(said) == seat.decisions
    assert all(request == n for request, n in said), said
    assert b"data-stderr-url" in client.get(f"/matches/{match.pk}/").content

    client.force_login(bob)
    assert client.get(f"/matches/{match.pk}/stderr/").status_code == 404
    assert b"data-stderr-url" not in client.get(f"/matches/{match.pk}/").content
    client.logout()
    assert client.get(f"/matches/{match.pk}/stderr/").status_code == 404
