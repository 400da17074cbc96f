"""Information states and resampling for OpenSpiel, and OpenSpiel's ISMCTS on top (issue 40).

A resampled state must look the same to the seat it was drawn for, and it must be drawn from what that seat
knows only: two true matches the seat cannot tell apart resample alike, so a search over resampled states
(ISMCTS) can never read a hidden card.
"""

from __future__ import annotations

import random

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")

from open_spiel.python.algorithms import ismcts, mcts  # noqa: E402

from arena.env.openspiel import register_openspiel, seeded_resampler  # noqa: E402
from arena.games import all_presets  # noqa: E402

# Short matches, so that a search's random rollouts end soon; every preset's own deal and rules otherwise.
SHORT = {"bura": "match:deals:1", "kozel": "target:2", "burraco": "target:300"}
PRESETS = sorted(all_presets())


@pytest.fixture(scope="module", autouse=True)
def _registered():
    register_openspiel()


def load(preset: str):
    game, _ = all_presets()[preset]
    return pyspiel.load_game("python_kozyr_" + preset.replace("-", "_"), {"rules": SHORT[game]})


def position(preset: str, seed: int, fraction: float):
    """A random match of ``preset`` at ``fraction`` of its decisions, or its last decision."""
    game = load(preset)
    rng = np.random.RandomState(seed)
    actions = []
    state = game.new_initial_state()
    state.apply_action(seed % 16)
    while not state.is_terminal():
        actions.append(int(rng.choice(state.legal_actions())))
        state.apply_action(actions[-1])
    state = game.new_initial_state()
    state.apply_action(seed % 16)
    for action in actions[:max(1, int(len(actions) * fraction))]:
        state.apply_action(action)
    assert not state.is_terminal()
    return state


def hidden_of_others(state, seat: int) -> list[str]:
    """What the other seats see (their hands, among other things), as strings."""
    return [state.observation_string(q) for q in range(state.get_game().num_players()) if q != seat]


def another_world(state, seat: int):
    """A true state ``seat`` cannot tell from ``state`` whose hidden cards differ from it."""
    for k in range(20):
        other = state.resample_from_infostate(seat, random.Random(1000 + k))
        if hidden_of_others(other, seat) != hidden_of_others(state, seat):
            return other
    raise AssertionError("20 resamples all dealt the true cards again")


@pytest.mark.parametrize("preset", PRESETS)
@pytest.mark.parametrize("fraction", [0.3, 0.8])
def test_a_resampled_state_is_the_same_to_its_seat_and_plays_on(preset, fraction):
    state = position(preset, 11, fraction)
    seat = state.current_player()
    samplers = [random.Random(0), random.Random(1), pyspiel.UniformProbabilitySampler(0.0, 1.0)]  # ISMCTS's default
    for k, sampler in enumerate(samplers):
        other = state.resample_from_infostate(seat, sampler)
        assert other.information_state_string(seat) == state.information_state_string(seat)
        assert other.observation_string(seat) == state.observation_string(seat)
        assert other.information_state_tensor(seat) == state.information_state_tensor(seat)
        assert other.legal_actions() == state.legal_actions()
        rng = np.random.RandomState(k)
        while not other.is_terminal():  # a consistent match: the engine plays it to the end
            other.apply_action(int(rng.choice(other.legal_actions())))
        assert sum(other.returns()) == pytest.approx(0.0)


@pytest.mark.parametrize("preset", PRESETS)
def test_resampling_reads_only_what_the_seat_knows(preset):
    state = position(preset, 5, 0.5)
    seat = state.current_player()
    world = another_world(state, seat)  # another true deal behind the same information state
    assert world.information_state_string(seat) == state.information_state_string(seat)
    players = state.get_game().num_players()
    for k in range(3):
        a = state.resample_from_infostate(seat, random.Random(k))
        b = world.resample_from_infostate(seat, random.Random(k))
        assert [a.observation_string(q) for q in range(players)] == [b.observation_string(q) for q in range(players)]
        assert a.match.events(None) == b.match.events(None)  # its log is the seat's view: no true card in it
        assert a.match.events(None) == state.match.events(seat)


def test_a_resampled_kozel_hand_never_holds_a_kind_its_seat_showed_it_lacks():
    game = load("kozel")
    for seed in range(6):
        state = game.new_initial_state()
        state.apply_action(seed)
        rng = np.random.RandomState(seed)
        while not state.is_terminal():
            seat = state.current_player()
            other = state.resample_from_infostate(seat, random.Random(seed))
            assert other.match.legal_actions(seat) == state.match.legal_actions(seat)
            voids = _voids(state, seat)
            kind = other.match._table.kind
            for q, lacks in voids.items():
                assert not {kind[c] for c in other.match._hands[q]} & lacks, (q, lacks, other.match._hands[q])
            state.apply_action(int(rng.choice(state.legal_actions())))


def _voids(state, seat):
    from arena.env.resample import _kozel_voids, deal_history

    return _kozel_voids(state.match, deal_history(state.match, seat))


def ismcts_policy(state, seed: int, simulations: int = 12):
    game = state.get_game()
    evaluator = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=np.random.RandomState(seed))
    bot = ismcts.ISMCTSBot(game, evaluator, uct_c=2.0, max_simulations=simulations,
                           random_state=np.random.RandomState(seed),
                           final_policy_type=ismcts.ISMCTSFinalPolicyType.NORMALIZED_VISITED_COUNT)
    bot.set_resampler(seeded_resampler(seed))
    return sorted(bot.run_search(state))


@pytest.mark.parametrize("preset", PRESETS)
def test_ismcts_decides_alike_whatever_the_hidden_cards_are(preset):
    """OpenSpiel's own ISMCTS, through information states and resampling only: for a fixed seed its search
    gives the same visit counts whether the other seats hold the true cards or another deal they could hold."""
    state = position(preset, 3, 0.4)
    while len(state.legal_actions()) < 2:  # a forced move skips the search
        state.apply_action(state.legal_actions()[0])
    seat = state.current_player()
    world = another_world(state, seat)
    policy = ismcts_policy(state, 7)
    assert policy == ismcts_policy(world, 7)
    assert sum(p for _, p in policy) == pytest.approx(1.0) and {a for a, _ in policy} == set(state.legal_actions())


@pytest.mark.parametrize("preset", ["bura", "burkozel-pairs", "kozel-3p"])
def test_ismcts_plays_whole_matches_against_random_seats(preset):
    game = load(preset)
    rng = np.random.RandomState(1)
    state = game.new_initial_state()
    state.apply_action(2)
    while not state.is_terminal():
        if state.current_player() == 0:
            policy = ismcts_policy(state, 4, simulations=4)
            state.apply_action(max(policy, key=lambda ap: ap[1])[0])
        else:
            state.apply_action(int(rng.choice(state.legal_actions())))
    assert sum(state.returns()) == pytest.approx(0.0)


def test_a_house_bots_engine_action_is_played_as_its_index_when_listed():
    from arena.bots import make_bot

    game = load("burraco-2p")
    state = game.new_initial_state()
    state.apply_action(4)
    rules = state.kozyr.rules
    bots = [make_bot("burraco", "greedy", seat, rules, seat) for seat in range(2)]
    with pytest.raises(ValueError, match="no seat is to move"):
        game.new_initial_state().apply_engine_action({"type": "draw"})
    listed = 0
    while not state.is_terminal():
        seat = state.current_player()
        if listed == 60:
            with pytest.raises(Exception, match=r"not-in-hand|draw-first"):  # the engine still validates
                state.apply_engine_action({"type": "meld", "cards": ["AS", "AS", "AS"]})
        action = bots[seat].act(state.match.observation(seat), None)
        before = len(state.history())
        state.apply_engine_action(action)
        # Listed: played as its index, in the history. Otherwise (a meld the candidates do not hold): on the
        # match, validated by the engine, not in the history.
        listed += len(state.history()) - before
    assert listed > 100 and sum(state.returns()) == pytest.approx(0.0)


def test_a_taken_widow_is_resampled_from_what_its_taker_could_hold():
    """Which of the soloist's cards came from the widow (and how many are still in its hand) is hidden from
    the others: the widow the soloist's observation shows must not carry the true one into a resample."""
    game = load("kozel-3p")
    players = game.num_players()
    compared = 0
    for seed in range(12):
        state = game.new_initial_state()
        state.apply_action(seed)
        rng = np.random.RandomState(seed)
        while not state.is_terminal():
            match, seat = state.match, state.current_player()
            if match._soloist not in (None, seat) and match._widow is not None and len(match._tricks) in (1, 3):
                world = another_world(state, seat)
                a = state.resample_from_infostate(seat, random.Random(1))
                b = world.resample_from_infostate(seat, random.Random(1))
                assert [a.observation_string(q) for q in range(players)] == \
                    [b.observation_string(q) for q in range(players)]
                soloist = a.match._soloist
                held = {*a.match._hands[soloist], *a.match._discard, *a.match._trick,
                        *(c for trick in a.match._tricks for c in trick[1])}
                assert set(a.match._widow) <= held
                compared += 1
            state.apply_action(int(rng.choice(state.legal_actions())))
    assert compared > 5
