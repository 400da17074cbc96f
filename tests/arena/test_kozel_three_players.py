"""kozel-3p as RULES.md §2 has it since issue 10: the 32-card deck without sixes, the widow as a decision of
the seat with the most card points, the lone player leading, and the misère when the widow is declined."""

from __future__ import annotations

import pytest

from arena.games.base import HIDDEN, IllegalAction
from arena.games.kozel import PRESETS, KozelState, new_match
from arena.games.kozel.cards import TABLES
from arena.games.kozel.scoring import misere_penalties
from arena.games.options import with_options

K3 = PRESETS["kozel-3p"]
DECK = TABLES["no-sixes"].deck
POINTS = TABLES["no-sixes"].points


def rest(*used) -> list[str]:
    taken = {c for group in used for c in group}
    return [c for c in DECK if c not in taken]


def test_the_preset_plays_the_deck_without_sixes_fourteen_trumps_and_sevens_in_play():
    assert (K3.players, K3.deck) == (3, "no-sixes")
    assert len(DECK) == 32 and not any(c[0] == "6" for c in DECK) and {"7S", "7H", "7C", "7D"} <= set(DECK)
    assert TABLES["no-sixes"].trumps == ("QC", "QS", "QH", "QD", "JC", "JS", "JH", "JD",
                                         "AD", "TD", "KD", "9D", "8D", "7D")
    state = new_match(K3, 4)
    deal = state.events(None)[0]
    assert [len(h) for h in deal["hands"]] == [10, 10, 10] and len(deal["widow"]) == 2
    assert sorted([*(c for h in deal["hands"] for c in h), *deal["widow"]]) == sorted(DECK)


@pytest.mark.parametrize(("preset", "overrides", "deck"), [
    ("kozel", {"players": "3"}, "no-sixes"),
    ("kozel", {"players": "3", "deck": "no-sevens"}, "no-sevens"),
    ("kozel-3p", {"players": "4"}, "no-sevens"),
    ("kozel-3p", {"players": "4", "deck": "no-sixes"}, "no-sixes"),
    ("kozel-3p", {"target": "5"}, "no-sixes"),
])
def test_the_deck_follows_the_player_count_unless_it_is_given(preset, overrides, deck):
    assert with_options(PRESETS[preset], overrides).deck == deck


HANDS = [
    ["AS", "TS", "KS", "QS", "JS", "TC", "9H", "9C", "8S", "8H"],  # 40 points
    ["KD", "QD", "JD", "9S", "7D", "KC", "QC", "JC", "9D", "7C"],  # 18 points
    ["AH", "TH", "KH", "QH", "JH", "TD", "8D", "8C", "7S", "7H"],  # 40 points
]
WIDOW = ["AC", "AD"]


def widow_position(dealer=0, **kw) -> KozelState:
    return KozelState.from_position(K3, HANDS, widow=WIDOW, dealer=dealer, **kw)


def test_the_seat_with_most_card_points_decides_on_the_widow_unseen():
    state = widow_position(dealer=0)  # seats 0 and 2 tie on 40: seat 2 comes first from the dealer's left
    assert state.to_move() == 2
    obs = state.observation(2)
    assert obs["decision"] == "widow" and obs["widow"] is None and len(obs["hand"]) == 10
    assert state.events(2)[0]["widow"] == [HIDDEN, HIDDEN] and state.events(2)[0]["widow_holder"] == 2
    assert state.observation(0)["decision"] is None and state.legal_actions(0) == []


def test_taking_the_widow_discarding_and_the_lone_player_leads():
    state = widow_position(dealer=0)
    state.apply(2, {"type": "widow", "take": True})
    assert next(e for e in state.events(0) if e["type"] == "widow_decision") == \
        {"type": "widow_decision", "deal": 0, "seat": 2, "take": True}
    assert state.observation(2)["decision"] == "discard" and state.observation(2)["contract"] == "solo"
    state.apply(2, {"type": "discard", "cards": ["7S", "7H"]})
    assert state.to_move() == 2 and state.observation(2)["decision"] == "lead"  # not the dealer's left (seat 1)
    assert state.observation(1)["sides"] == [[2], [0, 1]]


def test_declining_the_widow_is_a_misere_led_from_the_dealers_left():
    state = widow_position(dealer=0)
    state.apply(2, {"type": "widow", "take": False})
    obs = state.observation(1)
    assert (obs["contract"], obs["soloist"], obs["sides"], obs["my_side"]) == ("misere", None, [[0], [1], [2]], 1)
    assert state.to_move() == 1 and obs["decision"] == "lead"
    assert len(state.observation(2)["hand"]) == 10 and not any(e["type"] == "widow" for e in state.events(None))


@pytest.mark.parametrize("take", ["yes", 1, None])
def test_the_widow_decision_is_true_or_false(take):
    state = widow_position()
    with pytest.raises(IllegalAction) as err:
        state.apply(2, {"type": "widow", "take": take})
    assert err.value.rule == "bad-action"
    with pytest.raises(IllegalAction) as err:
        state.apply(2, {"type": "play", "card": "AH"})
    assert err.value.rule == "wrong-action-type"


def misere_end(hands, won, widow, **kw) -> dict:
    state = KozelState.from_position(K3, hands, widow=widow, misere=True, won=won, dealer=2, **kw)
    while state.to_move() is not None and not state.outcome()["deals"]:
        seat = state.to_move()
        state.apply(seat, state.legal_actions(seat)[0])
    return state.outcome()["deals"][0]


def test_a_misere_scores_each_seat_alone_and_the_widow_counts_for_nobody():
    hands = [["7S"], ["8S"], ["9S"]]  # seat 0 leads (dealer 2), seat 2 takes the last trick with 9S
    widow = ["AD", "TD"]  # 21 points that count for nobody
    pile_0 = ["AS", "TS", "KS", "QS", "JS", "AH", "KH", "8C", "9C"]  # 11+10+4+3+2+11+4 = 45
    pile_1 = ["AC", "TC", "KC", "QC", "JC", "TH", "9H", "7C", "8H"]  # 11+10+4+3+2+10 = 40
    pile_2 = rest(hands[0], hands[1], hands[2], widow, pile_0, pile_1)
    end = misere_end(hands, [pile_0, pile_1, pile_2], widow)
    assert end["contract"] == "misere" and end["sides"] == [[0], [1], [2]]
    assert sum(end["points"]) == 120 - 21
    assert end["points"][0] == 45 and end["penalties"][0] == 2
    assert end["penalties"] == misere_penalties(end["points"])


@pytest.mark.parametrize(("points", "penalty"), [(0, 0), (30, 0), (31, 2), (60, 2), (61, 4), (99, 4)])
def test_misere_penalties_read_like_the_rules(points, penalty):
    assert misere_penalties([points, 0, 0])[0] == penalty


def test_a_pending_doubling_applies_to_a_misere_and_is_then_spent():
    hands = [["7S"], ["8S"], ["9S"]]
    widow = ["7D", "8D"]
    pile_0 = ["AS", "TS", "KS", "QS", "JS", "AH", "TH", "KH", "QH"]  # 11+10+4+3+2+11+10+4+3 = 58
    pile_1 = rest(hands[0], hands[1], hands[2], widow, pile_0)[:9]
    pile_2 = rest(hands[0], hands[1], hands[2], widow, pile_0, pile_1)
    plain = misere_end(hands, [pile_0, pile_1, pile_2], widow)
    doubled = misere_end(hands, [pile_0, pile_1, pile_2], widow, multiplier=2)
    assert doubled["doubled"] is True and doubled["penalties"] == [2 * p for p in plain["penalties"]]
    assert any(plain["penalties"])


def test_a_lone_player_on_sixty_is_a_tie_that_doubles():
    hands = [["7S"], ["QC"], ["8S"]]  # seat 0 leads 7S; the soloist (seat 1) has no spade and trumps it
    discard = ["AS", "AH"]  # 22, counts for the soloist
    solo_won = ["TS", "TH", "TC", "QS", "JS", "9H"]  # 35; with the last trick's queen: 22 + 35 + 3 = 60
    opponents = rest(hands[0], hands[1], hands[2], discard, solo_won)
    state = KozelState.from_position(K3, hands, soloist=1, discard=discard, won=[opponents, solo_won, []], leader=0)
    for seat, card in ((0, "7S"), (1, "QC"), (2, "8S")):
        state.apply(seat, {"type": "play", "card": card})
    end = state.outcome()["deals"][0]
    assert (end["points"], end["tie"], end["penalties"]) == ([60, 60], True, [0, 0, 0])
    assert state.observation(0)["multiplier"] == 2
