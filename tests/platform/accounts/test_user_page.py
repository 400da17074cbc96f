"""A user's public page: their bots with their best rating, the tournaments they entered and host, and their
ratings as a person at the tables, in a fixed number of queries; nothing private. Every "by <author>" links it."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from bots.actions import do_create_bot, make_current
from bots.models import Bot, BotVersion


@pytest.fixture
def author(make_user, house_bots):
    from ratings.models import Rating
    from tournaments import actions

    user = make_user("ux4author", email="secret-address@example.org")
    for i in range(6):  # enough rows that a query per row would show
        bot = do_create_bot(user, game="bura", name=f"ux-bot-{i}", presets=["bura"],
                            description="the private-looking description is public")
        version = BotVersion.objects.create(bot=bot, number=1, builtin="greedy", runtime="builtin", status="ready",
                                            sha256="f" * 64, filename="secret_source.py")
        make_current(version)
        Rating.objects.create(bot=bot, version=version, preset="bura", live_mu=25.0, live_sigma=8.0, games=10 + i,
                              official=1500.0 + i, board=1500.0 + i, is_current=True)
    inactive = Bot.objects.get(name="ux-bot-5")
    inactive.active = False
    inactive.save()
    for i in range(3):
        cup = actions.do_create_tournament(user, name=f"UX cup {i}", preset="bura", format="swiss", rounds=3,
                                           deals=1, time_control=None, entry="open", max_entries=8,
                                           entry_deadline=None, starts_at=timezone.now() + timedelta(days=1))
        actions.do_join(user, cup, Bot.objects.get(name=f"ux-bot-{i}"))
    return user


def test_it_shows_a_users_bots_tournaments_and_nothing_private(client, author, bob, django_assert_max_num_queries):
    client.force_login(bob)
    with django_assert_max_num_queries(10):
        page = client.get("/users/ux4author/")
    assert page.status_code == 200
    html = page.content.decode()
    for i in range(6):
        assert f'href="/bots/ux-bot-{i}/"' in html
    assert "<strong>1504</strong>" in html and "inactive" in html
    main = html[html.index("<main"):html.index("</main>")]
    assert main.count('href="/tournaments/') == 6  # entered (3) and hosted (3)
    assert "secret-address" not in html and "secret_source" not in html and "f" * 64 not in html
    assert client.get("/users/UX4AUTHOR/").status_code == 200
    assert client.get("/users/nobody-here/").status_code == 404


def test_it_shows_a_persons_ratings_at_the_tables(client, author):
    from bots.people import person_version
    from ratings.models import Rating

    seat = person_version(author, "bura")
    Rating.objects.create(bot=seat.bot, version=seat, preset="bura", live_mu=27.0, live_sigma=5.0,
                          games=4, wins=3, losses=1, official=1612.0)
    html = client.get("/users/ux4author/").content.decode()
    assert 'id="user-people"' in html and "1612" in html and "3–0–1" in html


def test_every_by_author_links_the_users_page(client, author):
    link = 'href="/users/ux4author/"'
    assert link in client.get("/bots/ux-bot-0/").content.decode()
    assert link in client.get("/bots/").content.decode()
    cup = author.hosted_tournaments.first()
    assert client.get(f"/tournaments/{cup.pk}/").content.decode().count(link) >= 2  # host and entry's owner
