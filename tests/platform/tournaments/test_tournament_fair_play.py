"""Fair play in tournaments (docs/tournaments.md, the "Fair play" bullet): one bot per owner (house bots
excepted), a pairing with a remote entrant dealt afresh per rotation while the sealed pairings keep their
duplicate deal, and a failed game with a remote seat replaced on a fresh deal."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from bots.actions import do_create_bot, make_current
from bots.models import Bot, BotVersion
from bots.remote import do_make_remote_version
from matches import actions
from matches.models import Match
from tournaments import lifecycle
from tournaments.actions import do_create_tournament, do_join
from tournaments.models import Entry, Pairing, PairingSet, Tournament


def ready_bot(owner, name: str, builtin: str = "greedy") -> Bot:
    bot = do_create_bot(owner, game="bura", name=name)
    make_current(BotVersion.objects.create(bot=bot, number=1, builtin=builtin, runtime="builtin", status="ready"))
    bot.refresh_from_db()
    return bot


def remote_bot(owner, name: str) -> Bot:
    bot = do_create_bot(owner, game="bura", name=name)
    version, _ = do_make_remote_version(bot)
    version.status = BotVersion.Status.READY
    version.save(update_fields=["status"])
    make_current(version)
    bot.refresh_from_db()
    return bot


def cup(host, name: str = "Cup", **fields) -> Tournament:
    return do_create_tournament(host, **{
        "name": name, "preset": "bura", "overrides": {"match": "deals:1"}, "format": "round_robin", "rounds": None,
        "deals": 1, "time_control": {}, "entry": "open", "max_entries": 16,
        "starts_at": timezone.now() + timedelta(hours=1), "entry_deadline": None, **fields})


def test_a_tournament_refuses_a_second_bot_of_one_owner_with_a_clear_message(alice, bob, house_bots, as_user):
    first, second = ready_bot(alice, "alice-one"), remote_bot(alice, "alice-far")
    t = cup(bob)
    client = as_user(alice)
    url = f"/api/v1/tournaments/{t.pk}/join/"
    assert client.post(url, {"bot": first.name}, format="json").status_code == 201
    refused = client.post(url, {"bot": second.name}, format="json")
    assert refused.status_code == 400
    error = refused.json()["error"]
    assert "bot" in error["fields"]
    assert error["message"] == ("bot: alice-one, another bot of alice, has joined already: a tournament takes one bot "
                                "per owner, since two bots of one owner could play for each other; compare your "
                                "own bots with a version test")
    # the host of a private tournament adding bots is held to the same rule; house bots are all the site's
    private = cup(bob, name="Private", entry="private")
    do_join(bob, private, first)
    with pytest.raises(lifecycle.TournamentError, match="one bot per owner"):
        do_join(bob, private, second)
    for name in ("greedy-bura", "random-bura", "greedy-p50-bura"):
        do_join(bob, private, Bot.objects.get(name=name))
    assert private.entries.count() == 4
    # leaving makes room for the owner's other bot
    assert client.post(f"/api/v1/tournaments/{t.pk}/leave/", {"bot": first.name}, format="json").status_code in (
        200, 204)
    assert client.post(url, {"bot": second.name}, format="json").status_code == 201


def test_the_start_withdraws_an_owners_second_entry_from_before_the_rule(alice, house_bots):
    t = cup(alice)
    mine = [ready_bot(alice, "alice-one"), ready_bot(alice, "alice-two", "random")]
    for bot in [*mine, Bot.objects.get(name="greedy-bura")]:
        Entry.objects.create(tournament=t, bot=bot)  # as an entry made before the rule was
    lifecycle.start(t)
    entries = {e.bot.name: e for e in Entry.objects.filter(tournament=t).select_related("bot")}
    assert entries["alice-one"].withdrawn == "" and entries["greedy-bura"].withdrawn == ""
    assert entries["alice-two"].withdrawn == ("alice-one, another bot of the same owner, entered first: one bot "
                                              "per owner")
    played = {s.version.bot.name for m in Match.objects.filter(kind="tournament") for s in m.seats.all()}
    assert "alice-two" not in played and {"alice-one", "greedy-bura"} <= played


def test_a_round_deals_a_remote_entrants_pairing_afresh_and_the_rest_alike(alice, house_bots):
    far = remote_bot(alice, "alice-far")
    t = cup(alice, deals=2, entry="private")
    for bot in (far, *(Bot.objects.get(name=n) for n in ("greedy-bura", "random-bura", "greedy-p50-bura"))):
        do_join(alice, t, bot)
    lifecycle.start(t)
    pairings = list(Pairing.objects.filter(round__tournament=t, round__number=1))
    assert len(pairings) == 2
    remote_seen = sealed_seen = 0
    for pairing in pairings:
        for link in PairingSet.objects.filter(pairing=pairing):
            matches = list(Match.objects.filter(duplicate_set=link.duplicate_set).prefetch_related("seats"))
            assert len(matches) == 2  # the set: both rotations
            if far.pk in (pairing.first.bot_id, pairing.second.bot_id):
                assert len({m.base_seed for m in matches}) == 2
                remote_seen += 1
            else:
                assert len({m.base_seed for m in matches}) == 1
                sealed_seen += 1
    assert remote_seen == sealed_seen == 2
    remote_seeds = [m.base_seed for m in Match.objects.filter(seats__version=far.current_version)]
    every_seed = list(Match.objects.values_list("base_seed", flat=True))
    assert remote_seeds and all(every_seed.count(seed) == 1 for seed in remote_seeds)


def test_a_failed_game_with_a_remote_seat_is_replaced_on_a_fresh_deal(alice, house_bots, settings):
    settings.MAX_ATTEMPTS = 1
    far = remote_bot(alice, "alice-far")
    t = cup(alice, entry="private")
    for bot in (far, Bot.objects.get(name="greedy-bura"), Bot.objects.get(name="random-bura"),
                Bot.objects.get(name="greedy-p50-bura")):
        do_join(alice, t, bot)
    lifecycle.start(t)
    remote = Match.objects.filter(kind="tournament", seats__version=far.current_version).first()
    sealed = Match.objects.filter(kind="tournament").exclude(duplicate_set=remote.duplicate_set).first()
    seeds = {m.pk: m.base_seed for m in (remote, sealed)}
    for match in (remote, sealed):
        Match.objects.filter(pk=match.pk).update(published_at=timezone.now())
        assert actions.claim(match.pk, "dead-worker")
    Match.objects.filter(pk__in=seeds).update(lease_expires=timezone.now() - timedelta(seconds=1))
    assert actions.recover_expired_leases() == 2  # failed after the last attempt: replaced
    for match, fresh in ((remote, True), (sealed, False)):
        replacement = Match.objects.filter(duplicate_set=match.duplicate_set, rotation=match.rotation,
                                           status="queued").exclude(pk=match.pk).get()
        assert (replacement.base_seed != seeds[match.pk]) is fresh
