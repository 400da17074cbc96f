"""Determinization: a match a seat cannot tell from the true one, its unseen cards dealt afresh.

``resample(match, seat, rng)`` is what OpenSpiel's ``resample_from_infostate`` needs (ISMCTS searches such
states, one per simulation). It reads only the seat's side of the match: its observation and its view of the
current deal's events (``deal_history``). The cards the seat has seen in this deal stay where they are (its
hand, every face-up card, its own face-down cards, the trump card wherever it went, Burraco cards taken from
the pile while their taker still holds them); the others are gathered, sorted and handed out again at random
to the places the seat cannot see (other hands, the stock, face-down pile cards, the widow, a discard, the
pozzetti), place sizes kept. Kozel's follow-suit rule is respected: a seat that did not follow a kind is
never given a card of it. The result is a function of the seat's information and ``rng`` alone: two true
matches the seat cannot tell apart resample to the same match for the same ``rng``
(tests/arena/env/test_openspiel_infostate.py). The resampled match also gets a fresh seed (later deals are
then unknown as well), and its event log becomes the seat's own view of it, so no true hidden card survives
anywhere in it. Earlier deals are over: their records stay as they were.
"""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

from arena.cards import MAX_SEED

TRIES = 1000  # fresh starts of a constrained hand-out before giving up (Kozel's voids; each try is cheap)


def deal_history(match: Any, seat: int, start: int = 0) -> list[dict[str, Any]]:
    """``seat``'s view of the events of the deal in play (from its ``deal`` event on); ``start``: an index of
    the match's events at or before that event, to read fewer of them."""
    events = match.events(seat, start)
    start = 0
    for i in range(len(events) - 1, -1, -1):
        if events[i].get("type") == "deal":
            start = i
            break
    return events[start:]


def _strings(obj: Any, out: set[str]) -> None:
    if isinstance(obj, str):
        out.add(obj)
    elif isinstance(obj, dict):
        for value in obj.values():
            _strings(value, out)
    elif isinstance(obj, (list, tuple)):
        for value in obj:
            _strings(value, out)


def seen_cards(match: Any, seat: int, deck: Any, history: list[dict[str, Any]]) -> set[str]:
    """Every card ``seat`` has seen in the deal in play (its observation and ``history``, its view of the deal's
    events)."""
    found: set[str] = set()
    _strings(match.observation(seat), found)
    _strings(history, found)
    return found & set(deck)


def _as_is(event: dict) -> dict:
    """A Bura log entry's build step for an event stored already built (a resampled match's blinded log)."""
    return event


def _relabel(obj: Any, mapping: dict[str, str]) -> Any:
    """``obj`` with every card named in ``mapping`` renamed, as new containers (shared ones are never changed)."""
    if isinstance(obj, str):
        return mapping.get(obj, obj)
    if isinstance(obj, list):
        return [_relabel(x, mapping) for x in obj]
    if isinstance(obj, tuple):
        return tuple(_relabel(x, mapping) for x in obj)
    if isinstance(obj, dict):
        return {_relabel(k, mapping): _relabel(v, mapping) for k, v in obj.items()}
    if isinstance(obj, (set, frozenset)):
        return type(obj)(_relabel(x, mapping) for x in obj)
    return obj


def _hand_out(pool: list[str], groups: list[tuple[int, Any]], rng: random.Random) -> list[list[str]]:
    """``pool`` (sorted) dealt at random into groups of the given sizes, each card allowed by its group's
    ``allowed(card)`` (None: any card). Constrained groups are filled first; a dead end starts again."""
    assert sum(size for size, _ in groups) == len(pool), "the places to fill hold exactly the unseen cards"
    order = sorted(range(len(groups)), key=lambda g: groups[g][1] is None)
    for _ in range(TRIES):
        left = list(pool)
        rng.shuffle(left)
        out: list[list[str]] = [[] for _ in groups]
        for g in order:
            size, allowed = groups[g]
            if allowed is None:
                out[g], left = left[:size], left[size:]
                continue
            fits = [c for c in left if allowed(c)]
            if len(fits) < size:
                break
            out[g] = fits[:size]
            taken = Counter(out[g])
            rest = []
            for c in left:
                if taken[c]:
                    taken[c] -= 1
                else:
                    rest.append(c)
            left = rest
        else:
            return out
    raise ValueError(f"no hand-out of {len(pool)} unseen cards fits what the seat saw ({TRIES} tries)")


def _fresh_seed(rng: random.Random) -> int:
    return rng.randint(0, MAX_SEED)


# ------------------------------------------------------------------------------------------------ Bura

_BURA_CARD_FIELDS = ("hands", "stock", "piles", "pile_down", "known_down", "trick_plays", "trick_cards",
                     "best_cards", "forced_lead")


def _resample_bura(match: Any, seat: int, rng: random.Random, history: list[dict]) -> Any:
    from arena.games.bura.ranking import card_sort_key

    seen = seen_cards(match, seat, match.rules.deck_cards, history)
    values = {name: getattr(match, name) for name in _BURA_CARD_FIELDS}
    # The unseen cards by where they lie (first place met, fields in a fixed order): place k of the true
    # match and of any other the seat cannot tell from it hold the same unseen card after the relabelling.
    places: dict[str, None] = {}
    found: list[str] = []
    for name in _BURA_CARD_FIELDS:
        found.clear()
        _ordered_strings(values[name], found)
        for card in found:
            if card not in seen and card in match.rules.deck_cards:
                places.setdefault(card, None)
    unseen = list(places)
    fresh = sorted(unseen, key=card_sort_key)
    rng.shuffle(fresh)
    mapping = dict(zip(unseen, fresh, strict=True))
    other = match.clone()
    for name, value in values.items():
        setattr(other, name, _relabel(value, mapping))
    for hand in other.hands:
        hand.sort(key=card_sort_key)
    for row in other.known_down:
        for known in row:
            known.sort(key=card_sort_key)
    other._issued = None
    other._log = [(_as_is, event, None, None) for event in match.events(seat)]
    other._built = []
    other.seed = _fresh_seed(rng)
    return other


def _ordered_strings(obj: Any, out: list[str]) -> None:
    if isinstance(obj, str):
        out.append(obj)
    elif isinstance(obj, (list, tuple)):
        for value in obj:
            _ordered_strings(value, out)
    elif isinstance(obj, dict):
        for value in obj.values():
            _ordered_strings(value, out)


# ----------------------------------------------------------------------------------------------- Kozel

def _kozel_voids(match: Any, history: list[dict]) -> dict[int, set[str]]:
    """Per seat, the kinds it showed it lacks in the deal in play (it played another kind to one led)."""
    kind = match._table.kind
    voids: dict[int, set[str]] = {}
    led = None
    for event in history:
        if event["type"] == "play":
            card_kind = kind[event["card"]]
            if led is None:
                led = card_kind
            elif card_kind != led:
                voids.setdefault(event["seat"], set()).add(led)
        elif event["type"] == "trick":
            led = None
    return voids


def _resample_kozel(match: Any, seat: int, rng: random.Random, history: list[dict]) -> Any:
    from arena.games.kozel.state import FLAT

    table = match._table
    seen = seen_cards(match, seat, table.deck, history)
    voids = _kozel_voids(match, history)
    kind = table.kind
    # The places of unseen cards, in a fixed order: the other hands, the widow while it lies aside, the
    # soloist's discard. A taken widow is no place of its own: its cards are in the soloist's hand, discard or
    # tricks, and which ones they were is drawn afresh below (how many of them are still in the hand is
    # hidden too, so keeping them where they are would tell the truth).
    widow = match._widow
    elsewhere = {c for h in match._hands for c in h} | set(match._discard or ()) | set(match._trick)
    elsewhere.update(c for trick in match._tricks for c in trick[1])
    taken = widow is not None and set(widow) <= elsewhere
    places: list[tuple[Any, list[str]]] = [(voids.get(q), list(match._hands[q]))
                                           for q in range(match.num_seats) if q != seat]
    places += [(None, [] if taken else list(widow or ())), (None, list(match._discard or ()))]
    met: set[str] = set(seen)
    unseen: list[list[str]] = []
    for _, cards in places:
        unseen.append([c for c in cards if c not in met])
        met.update(cards)
    pool = sorted((c for cards in unseen for c in cards), key=table.order.__getitem__)
    groups = [(len(cards), (lambda c, lacks=lacks: kind[c] not in lacks) if lacks else None)
              for (lacks, _), cards in zip(places, unseen, strict=True)]
    dealt = _hand_out(pool, groups, rng)
    mapping = {old: new for olds, news in zip(unseen, dealt, strict=True) for old, new in zip(olds, news, strict=True)}
    other = match.clone()
    other._pick_up(_relabel(match._hands, mapping))
    for name in ("_widow", "_discard"):
        cards = getattr(match, name)
        if cards is not None:
            setattr(other, name, table.sort(_relabel(cards, mapping)))
    soloist = match._soloist
    if taken and soloist is not None and not set(widow) <= seen:
        # Any cards the soloist held after taking it: still in its hand, discarded, or played since.
        played = [e["card"] for e in history if e["type"] == "play" and e["seat"] == soloist]
        could = sorted({*other._hands[soloist], *(other._discard or ()), *played} - (seen - set(played)),
                       key=table.order.__getitem__)
        other._widow = table.sort(rng.sample(could, len(widow)))
    other._templates = [None] * match.num_seats
    other._log = [(event, FLAT) for event in match.events(seat)]
    other.seed = _fresh_seed(rng)
    return other


# --------------------------------------------------------------------------------------------- Burraco

def _burraco_known(match: Any, seat: int, history: list[dict]) -> dict[int, Counter]:
    """Per other seat, the cards the seat saw it take from the pile and not yet play (copies are alike: a card
    played counts against those known first, which never claims a card the hand may not hold)."""
    known: dict[int, Counter] = {q: Counter() for q in range(match.num_seats) if q != seat}
    for event in history:
        q = event.get("seat")
        if q not in known:
            continue
        if event["type"] == "take_pile":
            known[q].update(event["cards"])
        elif event["type"] in ("meld", "add"):
            known[q].subtract(event["cards"])
        elif event["type"] == "discard":
            known[q].subtract([event["card"]])
        known[q] = +known[q]  # drop counts at or below zero
    return known


def _resample_burraco(match: Any, seat: int, rng: random.Random, history: list[dict]) -> Any:
    from arena.games.burraco.views import card_order, sort_cards

    known = _burraco_known(match, seat, history)
    kept: dict[int, list[str]] = {}
    pool: list[str] = []
    groups: list[tuple[int, None]] = []
    for q in known:
        hand = Counter(match.hands[q])
        if known[q] - hand:
            missing = sorted((known[q] - hand).elements())
            raise ValueError(f"seat {q}'s hand lacks cards seat {seat} saw it take: {missing}")
        kept[q] = sorted(known[q].elements())
        pool += (hand - known[q]).elements()
        groups.append((len(match.hands[q]) - len(kept[q]), None))
    pool += match.stock
    groups.append((len(match.stock), None))
    pozzetti = [p for p in match.pozzetti if p is not None]
    for p in pozzetti:
        pool += p
        groups.append((len(p), None))
    pool.sort(key=card_order)
    dealt = _hand_out(pool, groups, rng)
    other = match.clone()
    for k, q in enumerate(known):
        other.hands[q] = sort_cards(kept[q] + dealt[k])
    other.stock = dealt[len(known)]
    rest = iter(dealt[len(known) + 1:])
    other.pozzetti = [None if p is None else next(rest) for p in match.pozzetti]
    other._log = [(event, None) for event in match.events(seat)]
    other.seed = _fresh_seed(rng)
    return other


_FAMILIES = {"BuraMatch": _resample_bura, "KozelState": _resample_kozel, "BurracoState": _resample_burraco}


def resample(match: Any, seat: int, rng: random.Random, start: int = 0) -> Any:
    """A match ``seat`` cannot tell from ``match`` (see the module docstring), drawn with ``rng``; ``start`` as
    for ``deal_history``."""
    family = _FAMILIES.get(type(match).__name__)
    if family is None:
        raise TypeError(f"no resampling for {type(match).__name__} matches")
    if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < match.num_seats:
        raise ValueError(f"seats are 0..{match.num_seats - 1}, not {seat!r}")
    return family(match, seat, rng, deal_history(match, seat, start))


__all__ = ["deal_history", "resample", "seen_cards"]
