"""The built-in Burraco bots: always legal from the observation alone, and greedy plays sensibly."""

from __future__ import annotations

from arena.bots.burraco import BOTS, GreedyBot, RandomBot
from arena.games.burraco import PRESETS, BurracoState, new_match
from arena.games.options import with_options

R2 = PRESETS["burraco-2p"]
DIAMONDS = ["3D", "4D", "5D", "6D", "7D", "8D", "9D", "TD", "JD", "QD", "KD"]
BURRACO = {"team": 0, "cards": ["3H", "4H", "5H", "6H", "7H", "8H", "9H"]}


def position(**kw) -> BurracoState:
    kw.setdefault("stock", ["3C", "4C", "5C", "6C"])
    kw.setdefault("discard_pile", ["9C"])
    kw.setdefault("pozzetti", [None, DIAMONDS])
    return BurracoState.from_position(R2, **kw)


def run_turn(state: BurracoState, bot) -> list[dict]:
    """Let ``bot`` play the current seat's turn to its discard; returns its actions."""
    seat = state.to_move()
    actions = []
    while state.to_move() == seat and not state.deals:
        action = bot.act(state.observation(seat), state.legal_actions(seat))
        state.apply(seat, action)
        actions.append(action)
        if action["type"] == "discard":
            break
    return actions


def test_bots_are_registered_by_name():
    assert BOTS["random"] is RandomBot and BOTS["greedy"] is GreedyBot and len(BOTS) == 2


def test_random_bot_never_melds_its_way_into_a_turn_it_cannot_finish():
    # Team pozzetto gone, no burraco: the bot may meld but must keep a card it is allowed to discard.
    for seed in range(40):
        state = position(hands=[["5S", "6S", "7S", "8S"], ["QC"]], phase="play")
        actions = run_turn(state, RandomBot(0, R2, seed))
        assert actions[-1]["type"] == "discard" and state.hands[0]


def test_random_bot_respects_the_one_card_pile_lock():
    for seed in range(40):
        state = position(hands=[["5S", "6S", "7S"], ["QC"]], discard_pile=["8S"])
        state.apply(0, {"type": "take_pile"})
        actions = run_turn(state, RandomBot(0, R2, seed))
        assert actions[-1] != {"type": "discard", "card": "8S"} or state.hands[0].count("8S")


def test_greedy_takes_a_pile_that_melds_and_draws_otherwise():
    bot = GreedyBot(0, R2, 1)
    state = position(hands=[["5H", "6H", "KC", "QD"], ["QC"]], discard_pile=["7H"])
    assert bot.act(state.observation(0), None) == {"type": "take_pile"}
    state = position(hands=[["5H", "6H", "KC", "QD"], ["QC"]], discard_pile=["9S", "4C", "JD", "TC"])
    assert bot.act(state.observation(0), None) == {"type": "draw"}


def test_greedy_closes_when_it_can():
    state = position(hands=[["5S", "6S", "7S", "KC"], ["QC"]], phase="play", melds=[BURRACO])
    run_turn(state, GreedyBot(0, R2, 1))
    assert state.deals and state.deals[0]["ended_by"] == "closing" and state.deals[0]["closed_by"] == 0


def test_greedy_extends_its_melds_and_keeps_wilds_for_later():
    state = position(hands=[["TH", "X", "KC", "4D", "QS", "8C", "6S"], ["QC"]], phase="play",
                     melds=[{"team": 0, "cards": ["7H", "8H", "9H"]}])
    actions = run_turn(state, GreedyBot(0, R2, 1))
    assert {"type": "add", "meld": 0, "cards": ["TH"]} in actions
    assert "X" in state.hands[0] and len(state.hands[0]) == 5


def test_greedy_discards_what_helps_nobody_rather_than_feeding_the_opponents():
    state = position(hands=[["8D", "KC", "4S", "JH"], ["QC"]], phase="play",
                     melds=[{"team": 1, "cards": ["5D", "6D", "7D"]}, {"team": 1, "cards": ["KS", "KH", "KD"]}])
    actions = run_turn(state, GreedyBot(0, R2, 1))
    assert actions[-1] == {"type": "discard", "card": "JH"}  # 8D and KC would go on their melds; JH is worth more


def test_greedy_beats_random_in_most_hands():
    rules = with_options(PRESETS["burraco"], {"target": 100_000})
    greedy_better = 0
    hands = 0
    for seed in range(6):
        state = new_match(rules, seed)
        greedy_team = seed % 2
        bots = [(GreedyBot if s % 2 == greedy_team else RandomBot)(s, rules, seed * 7 + s) for s in range(4)]
        while len(state.deals) < 2:
            seat = state.to_move()
            state.apply(seat, bots[seat].act(state.observation(seat), None))
        for deal in state.deals:
            hands += 1
            greedy_better += deal["scores"][greedy_team]["total"] > deal["scores"][1 - greedy_team]["total"]
    assert greedy_better >= hands * 2 // 3
