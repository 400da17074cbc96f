"""Kozel rules from explicit positions: trump order, following suit, scoring, the widow, illegal actions."""

from __future__ import annotations

import pytest

from arena.cards import derive_seed, shuffled
from arena.games.base import HIDDEN, IllegalAction, RuleOptionError
from arena.games.kozel import GAME, PRESETS, KozelState, Rules, new_match
from arena.games.kozel.cards import TABLES, TRUMP
from arena.games.kozel.scoring import beaten_side_penalty, solo_penalties, team_penalties
from arena.games.options import describe, with_options

FOUR = Rules()
THREE = Rules(players=3)
TABLE = TABLES["no-sevens"]
DECK = TABLE.deck


def points(cards) -> int:
    return sum(TABLE.points[c] for c in cards)


def rest_of_deck(*used, deck=DECK) -> list[str]:
    taken = {c for group in used for c in group}
    return [c for c in deck if c not in taken]


def four_player_end(hands, team1_won, **kw) -> KozelState:
    """Each seat holds ``hands[seat]``; team 1 (seat 1's pile) already took ``team1_won``, team 0 the rest."""
    team0_won = rest_of_deck(team1_won, *hands)
    return KozelState.from_position(FOUR, hands, won=[team0_won, team1_won, [], []], **kw)


def three_player_end(hands, soloist, discard, solo_won, **kw) -> KozelState:
    """The soloist already took ``solo_won``; the opponents (in ``opponent``'s pile) the rest."""
    opponent = next(s for s in range(3) if s != soloist)
    won = [[], [], []]
    won[soloist] = list(solo_won)
    won[opponent] = rest_of_deck(solo_won, discard, *hands)
    return KozelState.from_position(THREE, hands, soloist=soloist, discard=discard, won=won, **kw)


def play_trick(state: KozelState, cards) -> dict:
    """Play ``cards`` in turn order from the seat to move; return the trick event."""
    mark = len(state.events(None))
    for card in cards:
        state.apply(state.to_move(), {"type": "play", "card": card})
    return next(e for e in state.events(None, mark) if e["type"] == "trick")


def finish_hand(state: KozelState) -> dict:
    """Play the first legal card until the hand ends; return its deal_end event."""
    mark = len(state.events(None))
    while True:
        fresh = state.events(None, mark)
        done = [e for e in fresh if e["type"] == "deal_end"]
        if done:
            return done[0]
        seat = state.to_move()
        state.apply(seat, state.legal_actions(seat)[0])


# ---------------------------------------------------------------- trump order


def test_the_trump_order_runs_from_the_six_of_clubs_down_to_the_six_of_diamonds():
    assert TABLE.trumps == ("6C", "QC", "QS", "QH", "QD", "JC", "JS", "JH", "JD",
                            "AD", "TD", "KD", "9D", "8D", "6D")
    assert all(TABLE.kind[c] == TRUMP for c in TABLE.trumps)
    assert TABLE.plain_ranks == "ATK986"
    assert sum(TABLE.points.values()) == 120


@pytest.mark.parametrize(("cards", "winner_offset"), [
    (["QC", "6C", "JC", "AD"], 1),  # the six of clubs beats everything
    (["JC", "QD", "QC", "AD"], 2),  # the queen of clubs beats every other queen
    (["JC", "JS", "JH", "QD"], 3),  # the lowest queen beats every jack
    (["AD", "JD", "TD", "KD"], 1),  # the lowest jack beats the ace of diamonds
    (["AS", "TS", "6D", "KS"], 2),  # the lowest trump beats a plain ace
    (["9H", "AS", "AC", "6H"], 0),  # cards of another plain suit never take the trick
    (["8H", "TH", "AH", "KH"], 2),  # plain order A T K 9 8 6
])
def test_a_trick_goes_to_the_highest_trump_else_the_highest_card_of_the_led_suit(cards, winner_offset):
    hands = [[c] for c in cards]
    leader = 1  # the dealer is seat 0, so seat 1 leads; hands[s] is seat s's card
    state = KozelState.from_position(FOUR, [hands[(s - leader) % 4] for s in range(4)],
                                     won=[rest_of_deck(cards), [], [], []])
    trick = play_trick(state, cards)
    assert trick["winner"] == (leader + winner_offset) % 4
    assert trick["points"] == points(cards)


def test_the_taker_leads_the_next_trick():
    hands = [["9S", "9H"], ["8S", "8H"], ["AS", "6H"], ["6S", "TH"]]
    state = four_player_end(hands, [])
    trick = play_trick(state, ["8S", "AS", "6S", "9S"])
    assert trick["winner"] == 2
    assert state.to_move() == 2
    assert state.observation(2)["decision"] == "lead"


# ---------------------------------------------------------------- following suit


def spade_lead_position(responder_hand):
    """Seat 1 leads with two cards in hand; seat 2 holds ``responder_hand``."""
    seat1 = ["9S", "QS"] if "QS" not in responder_hand else ["9S", "QH"]
    used = [*seat1, *responder_hand]
    spare = [c for c in rest_of_deck(used) if c not in ("6S", "8S", "TS", "AS")]
    hands = [spare[0:2], seat1, list(responder_hand), spare[2:4]]
    return KozelState.from_position(FOUR, hands, won=[rest_of_deck(used, spare[:4]), [], [], []])


def test_a_queen_of_spades_led_asks_for_trumps_not_spades():
    used = ["QS", "6H", "AS", "8D", "9C", "9H", "TC", "KC"]
    hands = [["9C", "9H"], ["QS", "6H"], ["AS", "8D"], ["TC", "KC"]]
    state = KozelState.from_position(FOUR, hands, won=[rest_of_deck(used), [], [], []])
    state.apply(1, {"type": "play", "card": "QS"})
    assert state.observation(2)["led"] == TRUMP
    assert state.legal_actions(2) == [{"type": "play", "card": "8D"}]
    with pytest.raises(IllegalAction) as err:
        state.apply(2, {"type": "play", "card": "AS"})
    assert err.value.rule == "must-follow-suit"
    assert "trumps were led" in err.value.detail


def test_a_spade_lead_cannot_be_followed_by_the_queen_of_spades():
    state = spade_lead_position(["QS", "TS"])
    state.apply(1, {"type": "play", "card": "9S"})
    assert state.observation(2)["led"] == "S"
    assert state.legal_actions(2) == [{"type": "play", "card": "TS"}]
    with pytest.raises(IllegalAction) as err:
        state.apply(2, {"type": "play", "card": "QS"})
    assert err.value.rule == "must-follow-suit"
    assert "QS is a trump" in err.value.detail


def test_without_the_led_suit_any_card_may_be_played_and_there_is_no_need_to_trump():
    state = spade_lead_position(["QS", "6H"])  # the queen of spades is not a spade
    state.apply(1, {"type": "play", "card": "9S"})
    assert [a["card"] for a in state.legal_actions(2)] == ["QS", "6H"]
    state.apply(2, {"type": "play", "card": "6H"})
    assert state.observation(3)["trick"] == ["9S", "6H"]


def test_a_follower_need_not_beat_the_card_led():
    state = spade_lead_position(["8S", "AS"])
    state.apply(1, {"type": "play", "card": "9S"})
    assert [a["card"] for a in state.legal_actions(2)] == ["AS", "8S"]
    state.apply(2, {"type": "play", "card": "8S"})


# ---------------------------------------------------------------- four-player scoring

LAST_TRICK = [["6C"], ["9S"], ["8S"], ["6S"]]  # seat 1 leads a spade, seat 0 takes it with the six of clubs
SIXTY = ["AS", "AH", "TS", "TH", "KS", "KH", "KC", "KD", "JS", "9C", "9H", "9D"]
FIFTY_NINE = ["AS", "AH", "TS", "TH", "KS", "KH", "QS", "QH", "QC", "9C", "9H", "9D"]


@pytest.mark.parametrize(("team1_won", "team1_points", "penalty"), [
    (FIFTY_NINE, 59, 2),
    (["AS", "TS", "KS", "KH", "JS", "9C", "9H", "9D"], 31, 2),
    (["AS", "TS", "KS", "QS", "JS", "9C", "9H", "9D"], 30, 4),
    (["9C", "9H", "9D", "8C"], 0, 4),  # a trick with no points is still a trick
    ([], 0, 6),
])
def test_the_beaten_team_gets_2_for_31_or_more_4_for_less_and_6_without_a_trick(team1_won, team1_points, penalty):
    state = four_player_end(LAST_TRICK, team1_won)
    end = finish_hand(state)
    assert end["points"] == [120 - team1_points, team1_points]
    assert end["tricks"] == [8 - len(team1_won) // 4, len(team1_won) // 4]
    assert end["penalties"] == [0, penalty, 0, penalty]
    assert state.outcome()["points"] == [0, penalty, 0, penalty]
    assert end["tie"] is False and end["doubled"] is False


def test_sixty_one_wins_the_hand_for_either_team():
    team1 = [*FIFTY_NINE[:-3], "JS", "9C", "9H", "9D", "8C", "8H", "8D"]  # 59 + 2 = 61, four tricks
    state = four_player_end(LAST_TRICK, team1)
    end = finish_hand(state)
    assert end["points"] == [59, 61]
    assert end["penalties"] == [2, 0, 2, 0]


def test_sixty_all_scores_nothing_and_doubles_the_next_hand():
    state = four_player_end(LAST_TRICK, SIXTY, scores=[2, 4, 2, 4])
    end = finish_hand(state)
    assert end["points"] == [60, 60]
    assert end["tie"] is True
    assert end["penalties"] == [0, 0, 0, 0]
    assert state.outcome()["points"] == [2, 4, 2, 4]
    assert state.observation(0)["doubled"] is True
    deal = [e for e in state.events(None) if e["type"] == "deal"][-1]
    assert deal["doubled"] is True and deal["deal"] == 1
    following = finish_hand(state)
    assert following["doubled"] is True
    base = team_penalties(following["points"], following["tricks"])
    if base is not None:
        assert following["penalties"] == [2 * base[s % 2] for s in range(4)]
        assert state.observation(0)["doubled"] is False


def test_a_doubled_hand_doubles_each_penalty():
    state = four_player_end(LAST_TRICK, [], doubled=True)
    end = finish_hand(state)
    assert end["doubled"] is True
    assert end["penalties"] == [0, 12, 0, 12]


def test_without_tie_doubles_sixty_all_just_scores_nothing():
    rules = Rules(tie_doubles=False)
    hands = LAST_TRICK
    state = KozelState.from_position(rules, hands, won=[rest_of_deck(SIXTY, *hands), SIXTY, [], []])
    assert finish_hand(state)["tie"] is True
    assert state.observation(0)["doubled"] is False


def test_sixty_all_twice_in_a_row_doubles_again():
    state = four_player_end(LAST_TRICK, SIXTY, doubled=True)
    end = finish_hand(state)
    assert end["tie"] is True and end["doubled"] is True
    obs = state.observation(0)
    assert obs["doubled"] is True and obs["multiplier"] == 4  # 000: "two in a row — four times"


def test_a_hand_after_two_sixty_alls_counts_four_times_and_says_so():
    state = four_player_end(LAST_TRICK, [], multiplier=4)
    end = finish_hand(state)
    assert (end["doubled"], end["multiplier"], end["penalties"]) == (True, 4, [0, 24, 0, 24])
    assert state.observation(0)["multiplier"] == 1


def test_the_first_team_to_twelve_is_the_goat_and_the_match_ends():
    state = four_player_end(LAST_TRICK, FIFTY_NINE, scores=[10, 10, 10, 10])
    finish_hand(state)
    assert state.is_over() and state.to_move() is None
    outcome = state.outcome()
    assert outcome["finished"] is True
    assert outcome["points"] == [10, 12, 10, 12]
    assert outcome["ranks"] == [1, 2, 1, 2]
    assert outcome["goats"] == [1, 3]
    assert outcome["points_kind"] == "penalty"
    assert outcome["teams"] == [[0, 2], [1, 3]]
    assert state.events(None)[-1] == {"type": "match_end", "scores": [10, 12, 10, 12], "goats": [1, 3],
                                      "ranks": [1, 2, 1, 2]}
    assert state.legal_actions(0) == []
    with pytest.raises(IllegalAction) as err:
        state.apply(0, {"type": "play", "card": "6C"})
    assert err.value.rule == "match-over"


def test_the_target_option_moves_the_goat_line():
    rules = Rules(target=2)
    state = KozelState.from_position(rules, LAST_TRICK, won=[rest_of_deck(FIFTY_NINE, *LAST_TRICK), FIFTY_NINE,
                                                               [], []])
    finish_hand(state)
    assert state.is_over() and state.outcome()["goats"] == [1, 3]


# ---------------------------------------------------------------- dealing


def test_a_hand_is_dealt_one_card_at_a_time_from_the_dealers_left_and_the_dealer_passes_left():
    state = new_match(FOUR, 2024)
    first = state.events(None)[0]
    dealer = first["dealer"]
    deck = shuffled(DECK, derive_seed(2024, 0))
    for seat in range(4):
        expected = [deck[i] for i in range(32) if (dealer + 1 + i) % 4 == seat]
        assert first["hands"][seat] == TABLE.sort(expected)
    assert state.to_move() == (dealer + 1) % 4
    assert state.observation(0)["deal"] == 0
    finish_hand(state)
    second = [e for e in state.events(None) if e["type"] == "deal"][1]
    assert second["deal"] == 1 and second["dealer"] == (dealer + 1) % 4
    assert state.to_move() == (dealer + 2) % 4


def test_the_first_dealer_is_drawn_by_lot_from_the_seed():
    dealers = {new_match(FOUR, seed).events(None)[0]["dealer"] for seed in range(40)}
    assert dealers == {0, 1, 2, 3}
    assert new_match(FOUR, 99).events(None) == new_match(FOUR, 99).events(None)


def test_hands_are_sorted_trumps_first_then_clubs_spades_hearts():
    state = new_match(FOUR, 5)
    for seat in range(4):
        hand = state.observation(seat)["hand"]
        assert hand == sorted(hand, key=TABLE.order.__getitem__)


# ---------------------------------------------------------------- three players: widow and soloist

WIDOW_HANDS = [
    ["AS", "TS", "KS", "QS", "JS", "TC", "9H", "9C", "8S", "8H"],  # 40 points
    ["KD", "QD", "JD", "9S", "6D", "KC", "QC", "JC", "9D", "6C"],  # 18 points
    ["AH", "TH", "KH", "QH", "JH", "TD", "8D", "8C", "6S", "6H"],  # 40 points
]
WIDOW = ["AC", "AD"]


@pytest.mark.parametrize(("dealer", "taker"), [(0, 2), (1, 2), (2, 0)])
def test_the_most_card_points_take_the_widow_ties_go_first_from_the_dealers_left(dealer, taker):
    assert [points(h) for h in WIDOW_HANDS] == [40, 18, 40]
    state = KozelState.from_position(THREE, WIDOW_HANDS, widow=WIDOW, dealer=dealer)
    assert state.to_move() == taker
    obs = state.observation(taker)
    assert (obs["decision"], obs["contract"], obs["widow_holder"], obs["soloist"]) == ("widow", "pending", taker, None)
    assert obs["widow"] is None and obs["sides"] == [] and obs["my_side"] is None  # the widow is taken unseen
    assert state.legal_actions(taker) == [{"type": "widow", "take": True}, {"type": "widow", "take": False}]
    state.apply(taker, {"type": "widow", "take": True})
    obs = state.observation(taker)
    assert obs["decision"] == "discard"
    assert obs["soloist"] == taker
    assert obs["widow"] == ["AD", "AC"]
    assert set(WIDOW) <= set(obs["hand"]) and len(obs["hand"]) == 12
    assert obs["sides"] == [[taker], [s for s in range(3) if s != taker]]


def test_the_clear_leader_in_points_takes_the_widow():
    hands = [WIDOW_HANDS[0], WIDOW_HANDS[2], WIDOW_HANDS[1]]
    hands[1] = ["AH", "TH", "KH", "QH", "JH", "TD", "8D", "8C", "6S", "AC"]  # 51 points
    widow = ["AD", "6H"]
    state = KozelState.from_position(THREE, hands, widow=widow, dealer=0)
    assert state.to_move() == 1 and state.observation(1)["decision"] == "widow"


def test_the_soloist_discards_two_cards_that_count_for_them_and_stay_hidden():
    state = KozelState.from_position(THREE, WIDOW_HANDS, widow=WIDOW, dealer=0)
    assert state.to_move() == 2
    state.apply(2, {"type": "widow", "take": True})
    actions = state.legal_actions(2)
    assert len(actions) == 66 and {"type": "discard", "cards": ["AD", "TH"]} in actions
    assert state.legal_actions(0) == []
    for bad, rule in [({"type": "discard", "cards": ["AD"]}, "discard-two-cards"),
                      ({"type": "discard", "cards": "AD TH"}, "discard-two-cards"),
                      ({"type": "discard", "cards": ["AD", "AD"]}, "discard-two-cards"),
                      ({"type": "discard", "cards": ["AD", "AS"]}, "card-not-in-hand"),
                      ({"type": "discard", "cards": ["AD", "1Z"]}, "bad-card"),
                      ({"type": "play", "card": "AD"}, "wrong-action-type")]:
        with pytest.raises(IllegalAction) as err:
            state.apply(2, bad)
        assert err.value.rule == rule
    state.apply(2, {"type": "discard", "cards": ["TH", "AC"]})
    mine = state.observation(2)
    assert mine["discard"] == ["AC", "TH"] and len(mine["hand"]) == 10
    assert "TH" not in mine["hand"]
    assert state.to_move() == 2 and state.observation(2)["decision"] == "lead"  # the lone player leads
    for seat in (0, 1):
        theirs = state.observation(seat)
        assert theirs["discard"] is None and theirs["widow"] is None
        discard_event = next(e for e in state.events(seat) if e["type"] == "discard")
        assert discard_event["cards"] == [HIDDEN, HIDDEN]
        widow_event = next(e for e in state.events(seat) if e["type"] == "widow")
        assert widow_event == {"type": "widow", "deal": 0, "seat": 2, "cards": [HIDDEN, HIDDEN]}
    assert next(e for e in state.events(2) if e["type"] == "discard")["cards"] == ["AC", "TH"]
    assert next(e for e in state.events(None) if e["type"] == "widow")["cards"] == ["AD", "AC"]


SOLO_HANDS = [["9S"], ["6C"], ["8S"]]  # seat 1 is the soloist and takes the last trick with the six of clubs


@pytest.mark.parametrize(("discard", "solo_won", "solo_points", "each_opponent"), [
    (["AS", "AH"], ["TS", "TH", "TC", "KS", "KH", "KC"], 64, 1),  # opponents took 56: +1 each
    (["AS", "AH"], ["TS", "TH", "TC", "TD", "AC", "AD", "KS", "KH", "KC"], 96, 2),  # opponents 24: +2 each
])
def test_a_winning_soloist_gives_each_opponent_1_for_31_or_more_else_2(discard, solo_won, solo_points, each_opponent):
    state = three_player_end(SOLO_HANDS, 1, discard, solo_won)
    end = finish_hand(state)
    assert end["sides"] == [[1], [0, 2]]
    assert end["points"] == [solo_points, 120 - solo_points]
    assert end["penalties"] == [each_opponent, 0, each_opponent]


def test_opponents_without_a_trick_count_as_under_31():
    discard = ["9C", "9H"]
    solo_won = rest_of_deck(discard, *SOLO_HANDS)
    state = three_player_end(SOLO_HANDS, 1, discard, solo_won)
    end = finish_hand(state)
    assert end["tricks"] == [10, 0]
    assert end["penalties"] == [2, 0, 2]


@pytest.mark.parametrize(("hands", "discard", "solo_won", "solo_points", "penalty"), [
    (SOLO_HANDS, ["AS", "AH"], ["TS", "9C", "9H"], 32, 2),
    (SOLO_HANDS, ["9C", "9H"], ["AS", "9D", "8C"], 11, 4),
    ([["6S"], ["8S"], ["9S"]], ["AS", "AH"], [], 22, 6),  # the discard is not a trick
])
def test_a_beaten_soloist_gets_2_4_or_6(hands, discard, solo_won, solo_points, penalty):
    state = three_player_end(hands, 1, discard, solo_won)
    end = finish_hand(state)
    assert end["points"][0] == solo_points
    assert end["penalties"] == [0, penalty, 0]


def test_sixty_all_in_the_three_player_game_doubles_the_next_hand():
    discard = ["AS", "AH"]
    solo_won = ["TS", "TH", "TC", "KS", "JS", "JH"]  # 22 + 38 = 60
    state = three_player_end(SOLO_HANDS, 1, discard, solo_won)
    end = finish_hand(state)
    assert end["points"] == [60, 60] and end["tie"] is True
    assert state.observation(0)["doubled"] is True


def test_solo_penalties_read_like_the_rulebook():
    assert solo_penalties([61, 59], [3, 7]) == [0, 1]
    assert solo_penalties([90, 30], [8, 2]) == [0, 2]
    assert solo_penalties([60, 60], [5, 5]) is None
    assert solo_penalties([59, 61], [4, 6]) == [2, 0]
    assert solo_penalties([30, 90], [1, 9]) == [4, 0]
    assert solo_penalties([22, 98], [0, 10]) == [6, 0]
    assert beaten_side_penalty(31, 1) == 2 and beaten_side_penalty(30, 1) == 4 and beaten_side_penalty(0, 0) == 6


def test_a_three_player_match_ends_when_one_seat_reaches_twelve():
    state = three_player_end(SOLO_HANDS, 1, ["9C", "9H"], ["AS", "9D", "8C"], scores=[3, 9, 5])
    finish_hand(state)
    outcome = state.outcome()
    assert outcome["finished"] and outcome["points"] == [3, 13, 5]
    assert outcome["ranks"] == [1, 3, 2]
    assert outcome["teams"] == [[0], [1], [2]]
    assert outcome["goats"] == [1]
    assert outcome["deals"][-1]["soloist"] == 1


# ---------------------------------------------------------------- illegal actions


@pytest.mark.parametrize(("seat", "action", "rule"), [
    (0, {"type": "play", "card": "6C"}, "not-your-turn"),
    (True, {"type": "play", "card": "9S"}, "not-your-turn"),
    ("1", {"type": "play", "card": "9S"}, "not-your-turn"),
    (1.0, {"type": "play", "card": "9S"}, "not-your-turn"),
    (1, ["play", "9S"], "bad-action"),
    (1, {"type": "play", "card": "9S", "extra": 1}, "bad-action"),
    (1, {"type": "play"}, "bad-action"),
    (1, {"type": "discard", "cards": ["9S", "9H"]}, "wrong-action-type"),
    (1, {"card": "9S"}, "wrong-action-type"),
    (1, {"type": "play", "card": "AS"}, "card-not-in-hand"),
    (1, {"type": "play", "card": "7S"}, "card-not-in-hand"),
    (1, {"type": "play", "card": "10S"}, "bad-card"),
    (1, {"type": "play", "card": 9}, "bad-card"),
    (1, {"type": "play", "card": ["9S"]}, "bad-card"),
])
def test_illegal_actions_name_the_rule_and_change_nothing(seat, action, rule):
    state = four_player_end(LAST_TRICK, [])
    before = (state.observation(1), state.events(None), state.to_move())
    with pytest.raises(IllegalAction) as err:
        state.apply(seat, action)
    assert err.value.rule == rule
    assert f"[rule: {rule}]" in str(err.value)
    assert (state.observation(1), state.events(None), state.to_move()) == before


def test_a_failed_follow_leaves_the_trick_as_it_was():
    state = spade_lead_position(["QS", "TS"])
    state.apply(1, {"type": "play", "card": "9S"})
    before = state.observation(2)
    with pytest.raises(IllegalAction):
        state.apply(2, {"type": "play", "card": "QS"})
    assert state.observation(2) == before


# ---------------------------------------------------------------- options and construction


def test_presets_and_module_contract():
    assert GAME == "kozel"
    assert PRESETS["kozel"] == Rules(players=4, deck="no-sevens", target=12, tie_doubles=True)
    assert (PRESETS["kozel-3p"].players, PRESETS["kozel-3p"].deck) == (3, "no-sixes")
    assert (FOUR.hand_size, FOUR.widow_size, THREE.hand_size, THREE.widow_size) == (8, 0, 10, 2)
    rows = {row["name"]: row for row in describe(FOUR)}
    assert set(rows) == {"players", "deck", "target", "tie_doubles"}
    assert all("000 (Uzbek)" in row["source"] and "RULES.md §2" in row["source"] for row in rows.values())


@pytest.mark.parametrize(("overrides", "message"), [
    ({"players": "5"}, "'players': '5' is not allowed; allowed: 4 | 3"),
    ({"players": "two"}, "is not an integer"),
    ({"target": "0"}, "out of range"),
    ({"target": "100"}, "out of range"),
    ({"tie_doubles": "maybe"}, "use true or false"),
    ({"deck": "36"}, "allowed: no-sevens | no-sixes"),
    ({"jokers": "2"}, "unknown option 'jokers'"),
])
def test_bad_options_are_refused_with_what_is_allowed(overrides, message):
    with pytest.raises(RuleOptionError) as err:
        with_options(FOUR, overrides)
    assert message in str(err.value)


def test_options_parse_from_strings_and_direct_construction_is_validated():
    assert with_options(FOUR, {"players": "3", "target": "21", "tie_doubles": "off"}) == \
        Rules(players=3, deck="no-sixes", target=21, tie_doubles=False)  # the deck follows the players
    with pytest.raises(RuleOptionError):
        Rules(players=2)
    with pytest.raises(RuleOptionError):
        Rules(target=True)


def test_the_no_sixes_deck_has_no_six_of_clubs_and_the_sevens_rank_lowest():
    table = TABLES["no-sixes"]
    assert table.trumps[0] == "QC" and table.trumps[-1] == "7D" and len(table.trumps) == 14
    assert table.plain_ranks == "ATK987"
    assert sum(table.points.values()) == 120
    rules = Rules(deck="no-sixes")
    cards = ["7S", "8S", "KC", "9S"]
    hands = [[cards[(s - 1) % 4]] for s in range(4)]
    state = KozelState.from_position(rules, hands, won=[rest_of_deck(cards, deck=table.deck), [], [], []])
    assert play_trick(state, cards)["winner"] == (1 + 3) % 4


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"hands": [["6C"], ["9S"], ["8S"]]}, "give 4 hands"),
    ({"hands": [["6C", "9H"], ["9S"], ["8S"], ["6S"]]}, "same number of cards"),
    ({"hands": LAST_TRICK, "won": [rest_of_deck(*LAST_TRICK)[:-1], [], [], rest_of_deck(*LAST_TRICK)[-1:]]},
     "whole tricks"),
    ({"hands": LAST_TRICK, "won": [rest_of_deck(*LAST_TRICK), [], [], []], "widow": ["AS", "AH"]}, "no widow"),
    ({"hands": LAST_TRICK, "won": [rest_of_deck(*LAST_TRICK)[:-4], [], [], []]}, "exactly the deck"),
    ({"hands": LAST_TRICK, "won": [rest_of_deck(*LAST_TRICK), [], [], []], "dealer": 4}, "seats are 0..3"),
])
def test_from_position_refuses_impossible_positions(kwargs, message):
    with pytest.raises(ValueError, match=message):
        KozelState.from_position(FOUR, **kwargs)


def test_from_position_for_three_players_needs_a_widow_or_a_soloist_with_a_discard():
    with pytest.raises(ValueError, match="either widow"):
        KozelState.from_position(THREE, WIDOW_HANDS)
    with pytest.raises(ValueError, match="either widow"):
        KozelState.from_position(THREE, WIDOW_HANDS, widow=WIDOW, soloist=0)
    with pytest.raises(ValueError, match="hold 2 cards"):
        KozelState.from_position(THREE, [h[:9] for h in WIDOW_HANDS], widow=[*WIDOW, "8S", "6S", "9C"])


def test_a_state_needs_kozel_rules_and_a_valid_seed():
    with pytest.raises(TypeError):
        KozelState(object(), 1)
    with pytest.raises(ValueError):
        KozelState(FOUR, -1)
    with pytest.raises(ValueError):
        new_match(FOUR, 1).observation(4)
    with pytest.raises(ValueError):
        new_match(FOUR, 1).events(-1)
