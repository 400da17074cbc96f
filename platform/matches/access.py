"""Who may see what of a match.

The competition's first invariant (DESIGN.md, "Hidden information"): a deal's hidden cards are the
referee's alone until every match that plays that deal has ended. ``Match.deal_in_play`` says whether that
time has come; this module turns it into what each reader may have (docs/matches.md, "What is hidden until
when"). Assume every seat reads the whole site: a remote bot runs online, a person may have a friend beside
them.
"""

from __future__ import annotations

from bots.access import can_see_private
from matches.models import Match, Seat

SEED_KEYS = frozenset({"seed", "base_seed"})
NAMED = 3  # the matches an embargo's reason names; the rest are counted


def detail_visible(user, seat: Seat) -> bool:
    """A validation match's verdict detail is its owner's business (issue: shown to its owner only)."""
    return seat.match.kind != Match.Kind.VALIDATION or can_see_private(user, seat.version.bot)


def seeds_visible(match: Match) -> bool:
    """A seed rebuilds every hand and the stock (``arena play --seed``): shown once the deal is over."""
    return not match.deal_in_play()


def without_seeds(value):
    """A stored result (or any JSON) with every seed taken out, at any depth."""
    if isinstance(value, dict):
        return {k: without_seeds(v) for k, v in value.items() if k not in SEED_KEYS}
    if isinstance(value, list):
        return [without_seeds(item) for item in value]
    return value


WHY = "it shows the deal's cards, which a seat of a match still to play that deal could use"


def deal_embargo(match: Match) -> str | None:
    """"embargoed until …", naming the matches of this match's deal still to end, while what shows its cards
    (its replay, frames, logs, seed) is withheld; None once every one of them has ended."""
    if not match.deal_in_play():
        return None
    waiting = list(Match.objects.playing_deal(match.base_seed).order_by("pk").values_list("pk", "status"))
    if not waiting:  # they ended between the two questions
        return None
    named = [f"match {pk} is still {status}" for pk, status in waiting[:NAMED]]
    if len(waiting) > NAMED:
        named.append(f"{len(waiting) - NAMED} more have not ended")
    return f"embargoed until every match of this deal has ended ({'; '.join(named)})"


def own_seats(user, seats: list[Seat]) -> list[int]:
    """The seats whose view ``user`` may follow while the match runs: those of their own bots (or their own
    place at a table). Staff are no exception: a running match's hands are nobody's to read but their seat's."""
    if not (user and user.is_authenticated):
        return []
    return [s.seat for s in seats if s.version.bot.owner_id == user.pk]


def every_hand_visible(match: Match) -> bool:
    """Whether anyone may see every hand of this match ("everything" in the viewer): only once its deal is
    over. No tournament option shows hole cards during play, since no site can tell that nobody at a seat
    reads the page: a remote bot does, and so can a person's friend."""
    return not match.deal_in_play()
