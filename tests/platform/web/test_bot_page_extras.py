"""What the bot and match pages promise beyond results: trophies, the owner's logs, challenges, live status."""

from __future__ import annotations

import pytest

from bots.actions import house_version
from matches import actions
from matches.models import Match
from play.tasks import play_match


def test_it_shows_a_bots_trophies_on_its_page(client, alice, as_user, house_bots, django_assert_max_num_queries):
    from tests.platform.tournaments.test_tournaments_platform import host_tournament, run_to_the_end
    from tournaments import lifecycle
    from tournaments.models import Tournament, Trophy

    field = ["greedy-bura", "greedy-p75-bura", "greedy-p25-bura", "random-bura"]
    pk = host_tournament(alice, as_user, field, name="Trophy Cup")
    lifecycle.start(Tournament.objects.get(pk=pk))
    run_to_the_end(pk)
    trophies = {t.place: t.bot.name for t in Trophy.objects.filter(tournament_id=pk)}
    assert sorted(trophies) == [1, 2, 3]
    with django_assert_max_num_queries(40):
        html = client.get(f"/bots/{trophies[1]}/").content.decode()
    assert "Trophies" in html and f'won <a href="/tournaments/{pk}/">Trophy Cup</a>' in html
    assert f'second in <a href="/tournaments/{pk}/">Trophy Cup</a>' in client.get(
        f"/bots/{trophies[2]}/").content.decode()
    loser = next(name for name in field if name not in trophies.values())
    assert "Trophies" not in client.get(f"/bots/{loser}/").content.decode()


@pytest.fixture
def logged_match(bura_bot, house_bots):
    """A match of alice's bot against a house bot, with a stderr log stored for alice's seat."""
    from bots import blobs
    from bots.models import BotVersion

    version = BotVersion.objects.create(bot=bura_bot, number=1, builtin="random", status="ready")
    match = actions.create_duplicate_set(kind="ladder", preset="bura",
                                         versions=[version, house_version("bura", "greedy")])[0]
    seat = match.seats.get(version=version)
    data = b"[1] thinking about the trump\n[2] playing QS"
    seat.log_sha256, seat.log_size = blobs.put("logs", data), len(data)
    seat.save()
    # played, with its whole deal: a log is embargoed while a match of its deal is still to end
    Match.objects.filter(duplicate_set=match.duplicate_set).update(status="finished")
    return match, seat.seat, data


def test_the_match_page_offers_the_owner_their_bots_log(client, alice, bob, logged_match):
    match, seat, data = logged_match
    link = f'href="/api/v1/matches/{match.pk}/seats/{seat}/log/"'
    client.force_login(alice)
    html = client.get(f"/matches/{match.pk}/").content.decode()
    assert link in html and "stderr log</a>" in html
    answer = client.get(f"/api/v1/matches/{match.pk}/seats/{seat}/log/")
    assert answer.status_code == 200 and answer.content == data
    assert html.count('class="seat-log"') == 1  # the house bot's seat has no log, and is not alice's


def test_nobody_else_sees_or_gets_the_log(client, bob, logged_match):
    match, seat, _ = logged_match
    link = f'href="/api/v1/matches/{match.pk}/seats/{seat}/log/"'
    assert link not in client.get(f"/matches/{match.pk}/").content.decode()
    assert client.get(f"/api/v1/matches/{match.pk}/seats/{seat}/log/").status_code in (401, 403)  # signed out
    client.force_login(bob)
    assert link not in client.get(f"/matches/{match.pk}/").content.decode()
    assert client.get(f"/api/v1/matches/{match.pk}/seats/{seat}/log/").status_code == 404


@pytest.fixture
def ready_bura_bot(bura_bot):
    """alice's bura bot with a ready version (built in, so its matches play without a sandbox)."""
    from bots.models import BotVersion

    version = BotVersion.objects.create(bot=bura_bot, number=1, builtin="random", status="ready")
    bura_bot.current_version = version
    bura_bot.presets = ["bura", "burkozel-pairs", "bura-3p"]
    bura_bot.save()
    return bura_bot


def test_it_challenges_a_bot_from_its_page_and_shows_the_result(client, alice, ready_bura_bot,
                                                                 django_assert_max_num_queries):
    assert 'id="challenge"' not in client.get("/bots/greedy-bura/").content.decode()  # signed out: no form
    client.force_login(alice)
    html = client.get("/bots/greedy-bura/").content.decode()
    assert 'id="challenge"' in html and '<option value="alice-bura">' in html
    challenge = html[html.index('id="challenge"'):]
    challenge = challenge[:challenge.index("</details>")]
    assert '<option value="bura-3p">' not in challenge  # three sides: no challenge there (a person may play it)
    answer = client.post("/bots/greedy-bura/", {"challenge": "1", "bot": "alice-bura", "preset": "bura"})
    assert answer.status_code == 302 and answer["Location"].startswith("/challenges/")
    matches = list(Match.objects.filter(kind="challenge").order_by("rotation"))
    assert len(matches) == 2 and {s.version.bot.name for s in matches[0].seats.all()} == {"alice-bura",
                                                                                           "greedy-bura"}
    waiting = client.get(answer["Location"]).content.decode()
    assert "being played" in waiting and "data-poll-matches" in waiting
    for match in matches:
        assert play_match(match.pk) == "finished"
    with django_assert_max_num_queries(10):
        done = client.get(answer["Location"]).content.decode()
    assert "data-poll-matches" not in done
    assert "won the challenge" in done or "A tie" in done
    assert done.count('class="status-finished"') == 2


def test_a_refused_challenge_says_why_beside_the_field(client, alice, ready_bura_bot):
    client.force_login(alice)
    answer = client.post("/bots/greedy-bura/", {"challenge": "1", "bot": "alice-bura", "preset": "burkozel"})
    html = answer.content.decode()
    assert answer.status_code == 200 and 'id="challenge-preset-error"' in html
    assert "alice-bura does not play burkozel" in html
    assert not Match.objects.filter(kind="challenge").exists()
    assert client.post("/bots/alice-bura/", {"challenge": "1", "bot": "alice-bura", "preset": "bura"}).status_code \
        == 404  # no other bot of hers to challenge herself with
    client.logout()
    assert client.post("/bots/greedy-bura/", {"challenge": "1", "bot": "alice-bura", "preset": "bura"}).status_code \
        == 404


def test_the_versions_api_and_the_bot_page_say_pending_playing_ready(client, alice, bura_bot, upload):
    from tests.platform.conftest import python_bot

    assert upload(alice, "alice-bura", "main.py", python_bot()).status_code == 201
    match = Match.objects.get(kind="validation", validates__bot=bura_bot)
    client.force_login(alice)
    [version] = client.get("/api/v1/bots/alice-bura/versions/").json()
    assert version["status"] == "pending" and version["validation_status"] == match.status == "queued"
    html = client.get("/bots/alice-bura/").content.decode()
    assert 'data-poll-bot="/bots/alice-bura/status/"' in html and "web/live.js" in html
    assert 'class="version-status status-pending">pending<' in html
    Match.objects.filter(pk=match.pk).update(status="running")
    assert client.get("/api/v1/bots/alice-bura/versions/").json()[0]["validation_status"] == "running"
    assert 'class="version-status status-playing">playing<' in client.get("/bots/alice-bura/").content.decode()
    bura_bot.versions.update(status="rejected", reason="it crashed")
    html = client.get("/bots/alice-bura/").content.decode()
    assert "data-poll-bot" not in html and "web/live.js" not in html  # nothing left to follow
    assert 'status-rejected">rejected<' in html and "it crashed" in html
