"""The presets as OpenSpiel games: OpenSpiel's own consistency checks, chance, and an algorithm on top."""

from __future__ import annotations

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")

from arena.cards import derive_seed  # noqa: E402
from arena.env.encoding import BuraEncoder  # noqa: E402
from arena.env.openspiel import register_openspiel  # noqa: E402
from arena.games import new_match, resolve  # noqa: E402


@pytest.fixture(scope="module", autouse=True)
def _registered():
    register_openspiel()


SIMULATIONS = 20  # whole matches per preset: enough to reach each game's rare actions (issue 40)


# Bura's, the cheapest, is traced: it covers the adapter. The others, traced, would cost twice their time and
# cover nothing more (CONTRIBUTING.md, "Coverage").
@pytest.mark.parametrize("name", ["python_kozyr_bura", *(pytest.param(name, marks=pytest.mark.no_cover) for name in (
    "python_kozyr_bura_3p", "python_kozyr_burkozel", "python_kozyr_burkozel_pairs", "python_kozyr_echki_6",
    "python_kozyr_kozel", "python_kozyr_kozel_3p"))])
def test_it_passes_openspiels_random_simulation_checks(name):
    pyspiel.random_sim_test(pyspiel.load_game(name), num_sims=SIMULATIONS, serialize=False, verbose=False)


@pytest.mark.no_cover  # traced, it would cost twice its time and cover nothing more (CONTRIBUTING.md)
@pytest.mark.slow
@pytest.mark.parametrize("name", ["python_kozyr_burraco", "python_kozyr_burraco_2p"])
def test_burraco_passes_openspiels_random_simulation_checks(name):
    """Burraco's matches run to 300 points here instead of 2,005: 20 of them still hold thousands of turns."""
    pyspiel.random_sim_test(pyspiel.load_game(name, {"rules": "target:300"}), num_sims=SIMULATIONS,
                            serialize=False, verbose=False)


def test_every_preset_is_registered_once_under_its_name():
    names = register_openspiel()
    assert "python_kozyr_burkozel_pairs" in names and len(names) == len(set(names)) == 9
    assert register_openspiel() == names  # a second call registers nothing new


def test_the_chance_outcome_is_the_deal_of_arena_plays_seed():
    game = pyspiel.load_game("python_kozyr_bura", {"seeds": 16, "base_seed": 2024})
    state = game.new_initial_state()
    assert state.is_chance_node() and len(state.chance_outcomes()) == 16
    state.apply_action(5)
    _, rules = resolve("bura")
    played = new_match(rules, derive_seed(2024, 5))  # arena play --seed 2024, game 5
    assert state.match.events(None)[0] == played.events(None)[0]
    seat = state.current_player()
    expected = BuraEncoder(rules).encode(played.observation(seat))
    assert state.observation_tensor(seat) == pytest.approx(expected.tolist())


def test_mcts_plays_a_small_variant_to_the_end():
    from open_spiel.python.algorithms import mcts

    game = pyspiel.load_game("python_kozyr_bura", {"rules": "match:deals:1/deck:24", "seeds": 8})
    rng = np.random.RandomState(3)
    bots = [mcts.MCTSBot(game, uct_c=1.4, max_simulations=8,
                         evaluator=mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=rng), random_state=rng),
            None]
    state = game.new_initial_state()
    while not state.is_terminal():
        if state.is_chance_node():
            state.apply_action(int(rng.choice([a for a, _ in state.chance_outcomes()])))
        elif state.current_player() == 0:
            state.apply_action(bots[0].step(state))
        else:
            state.apply_action(int(rng.choice(state.legal_actions())))
    assert sum(state.returns()) == 0.0 and max(state.returns()) <= 1.0


@pytest.mark.parametrize(("name", "params"), [
    ("python_kozyr_bura", {}), ("python_kozyr_kozel", {}), ("python_kozyr_burraco_2p", {"rules": "target:300"}),
])
def test_a_clone_plays_on_alone_and_shares_only_the_written_history(name, params):
    """MCTS and the consistency checks clone a state at every step: a clone must be independent, and cost the
    position rather than the whole history (pyspiel deep-copies the state's fields, the match among them)."""
    game = pyspiel.load_game(name, params)
    rng = np.random.RandomState(5)
    played = game.new_initial_state()
    played.apply_action(3)
    actions = []
    while not played.is_terminal():
        actions.append(int(rng.choice(played.legal_actions())))
        played.apply_action(actions[-1])
    state = game.new_initial_state()  # the same match, halfway
    state.apply_action(3)
    for action in actions[:len(actions) // 2]:
        state.apply_action(action)
    seats = game.num_players()
    before = [state.observation_string(p) for p in range(seats)], state.legal_actions(), state.match.events(None)
    twin = state.clone()
    assert twin.kozyr is state.kozyr  # the preset's configuration is shared, never copied
    written = len(state.match._log)
    assert all(a is b for a, b in zip(twin.match._log, state.match._log, strict=True))  # history: shared
    for action in actions[len(actions) // 2:]:
        twin.apply_action(action)
    assert twin.is_terminal() and twin.returns() == played.returns()
    after = [state.observation_string(p) for p in range(seats)], state.legal_actions(), state.match.events(None)
    assert after == before and len(state.match._log) == written < len(twin.match._log)
