"""The match page's "reproduce locally" command plays exactly that match: run here, it gives the stored result."""

from __future__ import annotations

import json

import pytest

from arena.cli import main
from bots.actions import house_version
from matches import actions
from matches.models import Match
from matches.reproduce import bot_arguments, reproduce_command
from play.tasks import play_match


def _run(command: str, tmp_path) -> list[dict]:
    words = command.split()
    assert words[:2] == ["arena", "play"]
    out = tmp_path / "out.json"
    assert main([*words[1:], "--json", str(out), "--quiet"]) == 0
    return json.loads(out.read_text())["matches"]


@pytest.mark.parametrize(("preset", "overrides"), [("bura", {"match": "deals:1"}), ("burkozel-pairs", {})])
def test_it_reproduces_exactly_one_stored_match_of_a_duplicate_set(house_bots, tmp_path, preset, overrides):
    versions = [house_version("bura", "greedy"), house_version("bura", "random")]
    made = actions.create_duplicate_set(kind="ladder", preset=preset, versions=versions, overrides=overrides)
    assert len(made) == 2
    for match in made:
        assert play_match(match.pk) == "finished"
    match = Match.objects.get(pk=made[1].pk)  # the second rotation: the bots sit the other way round
    command = reproduce_command(match)
    assert "--duplicate" not in command and f"--seed {match.base_seed} --games 1" in command
    assert command.count("builtin:") == 2  # one bot per team in a team preset, one per seat otherwise
    played = _run(command, tmp_path)
    assert len(played) == 1  # this match, not its duplicate set
    assert played[0]["ranks"] == match.result["ranks"] and played[0]["points"] == match.result["points"]
    assert played[0]["seed"] == match.seed == match.result["seed"]


def test_it_names_uploaded_bots_by_the_file_their_download_is_saved_as(house_bots, bura_bot):
    from bots.models import BotVersion
    from matches.models import Seat

    version = BotVersion.objects.create(bot=bura_bot, number=3, filename="main.py", sha256="0" * 64, size=10,
                                        entry=["python3", "main.py"], runtime="python", status="ready")
    match = actions.create_duplicate_set(kind="ladder", preset="bura",
                                         versions=[version, house_version("bura", "random")])[0]
    assert [b.argument for b in bot_arguments(match)] == ["alice-bura-v3.py", "builtin:random"]
    assert Seat.objects.filter(match=match).count() == 2


def test_the_page_explains_the_bots_and_the_seed(client, house_bots):
    made = actions.create_duplicate_set(kind="ladder", preset="bura", overrides={"match": "deals:1"},
                                        versions=[house_version("bura", "greedy"), house_version("bura", "random")])
    for rotation in made:  # the seed is shown once every match of the deal has ended
        assert play_match(rotation.pk) == "finished"
    match = Match.objects.get(pk=made[0].pk)
    html = client.get(f"/matches/{match.pk}/").content.decode()
    assert "plays exactly this match" in html and "not the rest of its duplicate set" in html
    assert f"<code>--seed {match.base_seed}</code> is the match's base seed" in html
    assert f"<code>{match.seed}</code>: that is the seed <code>arena replay</code> prints" in html
    assert "the house bot greedy-bura, built into arena" in html
