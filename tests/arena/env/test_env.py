"""The training environments: PettingZoo's and Gymnasium's own checks, seeds, replays, opponents."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

pytest.importorskip("pettingzoo")

from gymnasium.utils.env_checker import check_env
from pettingzoo.test import api_test

from arena import replay as replays
from arena.cards import derive_seed
from arena.env import KozyrGymEnv, env, raw_env
from arena.env.encoding import BuraEncoder
from arena.games import all_presets, new_match, resolve
from arena.runner import BOT_SEED_LABEL

PRESETS = list(all_presets())


@pytest.fixture(autouse=True)
def _quiet():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # api_test's notes on Dict observations with masks
        yield


@pytest.mark.parametrize("preset", PRESETS)
def test_it_passes_pettingzoo_api_test(preset):
    api_test(env(preset), num_cycles=300, verbose_progress=False)


@pytest.mark.parametrize("preset", ["bura", "burkozel-pairs", "kozel-3p", "burraco-2p"])
def test_it_passes_gymnasium_check_env(preset):
    check_env(KozyrGymEnv(preset, "builtin:random"), skip_render_check=True)


def play_out(aec, rng):
    """Random legal actions to the end; returns the number of steps."""
    steps = 0
    for agent in aec.agent_iter():
        observation, _, terminated, truncated, _ = aec.last()
        if terminated or truncated:
            aec.step(None)
            continue
        legal = np.flatnonzero(observation["action_mask"])
        assert legal.size, f"{agent} has no legal action"
        aec.step(int(rng.choice(legal)))
        steps += 1
    return steps


@pytest.mark.parametrize("preset", ["bura", "kozel", "burraco-2p"])
def test_the_mask_is_exactly_the_engines_legal_actions(preset):
    aec = raw_env(preset, rules={"match": "deals:2"} if preset == "bura" else None)
    aec.reset(seed=5)
    rng = np.random.default_rng(1)
    for _ in range(200):
        if aec.state.is_over():
            break
        seat = aec.state.to_move()
        mask = aec.observe(aec.agent_selection)["action_mask"]
        moves = aec.legal_moves()
        assert sorted(np.flatnonzero(mask)) == [i for i, _ in moves]
        legal = aec.state.legal_actions(seat)
        if legal is not None:  # the Bura family and Kozel list theirs: the mask covers each exactly once
            assert sorted(map(str, legal)) == sorted(str(a) for _, a in moves)
        aec.step(int(rng.choice([i for i, _ in moves])))


def test_a_reset_with_a_seed_deals_what_arena_play_deals():
    _, rules = resolve("bura")
    aec = raw_env("bura")
    aec.reset(seed=2024)
    played = new_match(rules, derive_seed(2024, 0))  # arena play --seed 2024: game 0's match seed
    assert aec.state.events(None)[:1] == played.events(None)[:1]
    aec.reset(seed=2024, options={"game": 3})
    assert aec.match_seed == derive_seed(2024, 3)


def test_an_episode_against_builtins_is_the_arena_play_match():
    """The learner copying greedy's choices in seat 0 against greedy gives greedy-vs-greedy's match."""
    from arena.bots import make_bot

    gym = KozyrGymEnv("bura", "builtin:greedy", seat=0)
    _, info = gym.reset(seed=7)
    seed = gym.aec.match_seed
    mirror = make_bot("bura", "greedy", 0, gym.aec.rules, derive_seed(seed, BOT_SEED_LABEL, 0))
    done = False
    while not done:
        raw = info["raw_observation"].to_dict()  # a compiled bot's act() takes exactly a dict
        wanted = mirror.act(raw, gym.aec.state.legal_actions(0))
        index = next(i for i, a in info["legal_actions"].items() if a == wanted)
        _observation, _reward, done, _, info = gym.step(index)
    reference = new_match(gym.aec.rules, seed)
    bots = [make_bot("bura", "greedy", s, reference.rules, derive_seed(seed, BOT_SEED_LABEL, s)) for s in range(2)]
    while not reference.is_over():
        s = reference.to_move()
        reference.apply(s, bots[s].act(reference.observation(s), reference.legal_actions(s)))
    assert gym.aec.state.events(None) == reference.events(None)


@pytest.mark.parametrize("preset", ["bura", "kozel"])
def test_replays_written_on_request_verify(preset, tmp_path):
    aec = raw_env(preset, rules={"match": "deals:1"} if preset == "bura" else {"target": "4"},
                  replay_dir=tmp_path)
    aec.reset(seed=11)
    play_out(aec, np.random.default_rng(2))
    assert aec.last_replay is not None and aec.last_replay.exists()
    replay = replays.load(aec.last_replay)
    state = replays.rebuild(replay)  # what `arena replay` runs first
    assert state.events(None) == aec.state.events(None)
    assert replay["seed"] == aec.match_seed


def test_an_illegal_action_ends_the_gym_episode_as_a_forfeit():
    gym = KozyrGymEnv("bura", "builtin:random", seat=0)
    observation, _ = gym.reset(seed=1)
    illegal = int(np.flatnonzero(observation["action_mask"] == 0)[0])
    _, reward, terminated, _, info = gym.step(illegal)
    assert (reward, terminated, info["illegal_action"]) == (-1.0, True, illegal)


def test_bura_action_indices_round_trip():
    encoder = BuraEncoder(resolve("burkozel")[1])
    hand = ["AS", "TS", "KH", "6C"]
    lead = {"type": "lead", "cards": ["AS", "TS"]}
    assert encoder.describe(encoder.index_of(hand, lead)) == "lead slots 0,1"
    down = {"type": "respond", "cards": ["TS", "6C"], "face_down": True}
    assert encoder.describe(encoder.index_of(hand, down)) == "respond up - down 1,3"
    mixed = {"type": "respond", "cards": ["AS", "KH"], "face_down": ["KH"]}
    assert encoder.describe(encoder.index_of(hand, mixed)) == "respond up 0 down 2"
    assert encoder.actions == 2 + 15 + 80


def test_a_snapshot_object_can_be_the_opponent():
    class First:
        def act(self, observation, legal_actions):
            return legal_actions[0]

    gym = KozyrGymEnv("kozel", First(), seat=1, rules={"target": "2"})
    observation, _ = gym.reset(seed=3)
    done = False
    while not done:
        observation, reward, done, _, _ = gym.step(int(np.flatnonzero(observation["action_mask"])[0]))
    assert reward in (-1.0, 0.0, 1.0)


def test_a_local_bot_program_is_an_opponent_through_the_protocol():
    """The Python starter bot, started as `arena play` starts it (the unsafe backend: no sandbox needed)."""
    from pathlib import Path

    starter = Path(__file__).resolve().parents[3] / "examples" / "bura" / "python"
    gym = KozyrGymEnv("bura", str(starter), seat=0, rules={"match": "deals:2"}, sandbox="unsafe")
    observation, _ = gym.reset(seed=4)
    done, steps = False, 0
    while not done:
        observation, _reward, done, _, _ = gym.step(int(np.flatnonzero(observation["action_mask"])[0]))
        steps += 1
    gym.close()
    assert steps > 0 and gym.aec.state.is_over()


def test_burraco_take_pile_is_offered_exactly_when_the_engine_accepts_it():
    """The mask offers take_pile from the observation alone; the engine is the judge of it."""
    from arena.games.base import IllegalAction

    aec = raw_env("burraco-2p", rules={"target": "300"})
    aec.reset(seed=2)
    rng = np.random.default_rng(4)
    draws = 0
    while not aec.state.is_over() and draws < 60:
        seat = aec.state.to_move()
        if aec.state.observation(seat)["decision"] == "draw":
            draws += 1
            trial = aec.state.clone()
            try:
                trial.apply(seat, {"type": "take_pile"})
                accepted = True
            except IllegalAction:
                accepted = False
            assert (1 in dict(aec.legal_moves())) == accepted
        aec.step(int(rng.choice([i for i, _ in aec.legal_moves()])))
    assert draws


def _block(encoder, vector, name_start):
    at = 0
    for name, length in encoder.blocks:
        if name.startswith(name_start):
            return vector[at:at + length]
        at += length
    raise KeyError(name_start)


@pytest.mark.parametrize("preset", ["bura", "burkozel-pairs", "burraco-2p"])
def test_the_vector_holds_the_documented_blocks(preset):
    """Decode a few blocks of docs/training.md back from the vectors of a random match, every seat."""
    aec = raw_env(preset, rules={"target": "300"} if preset.startswith("burraco") else None)
    aec.reset(seed=6)
    rng = np.random.default_rng(8)
    encoder = aec.encoder
    for _ in range(150):
        if aec.state.is_over():
            break
        for agent in aec.possible_agents:
            seat = int(agent.split("_")[1])
            raw = aec.state.observation(seat)
            vector = aec.observe(agent)["observation"]
            assert vector.shape == (encoder.size,) and vector.dtype == np.float32
            assert ((vector >= 0) & (vector <= 1)).all()
            if preset.startswith("burraco"):
                hand = _block(encoder, vector, "my hand")
                for card in set(raw["hand"]):
                    copies = raw["hand"].count(card)
                    assert hand[encoder.index[card]] == min(copies * (0.25 if card == "X" else 0.5), 1.0)
                assert hand.sum() == pytest.approx(sum(0.25 if c == "X" else 0.5 for c in raw["hand"]))
                mine = agent == aec.agent_selection
                slots = _block(encoder, vector, "candidates").reshape(-1, 4)
                assert slots[:, 0].sum() == (len(aec.infos[agent]["candidates"]) if mine else 0)
            else:
                d = len(encoder.deck)
                slots = _block(encoder, vector, "hand slots").reshape(encoder.hand, d)
                for slot, card in enumerate(raw["hand"]):
                    assert slots[slot].argmax() == encoder.index[card] and slots[slot].sum() == 1
                assert slots.sum() == len(raw["hand"])
                ups = _block(encoder, vector, "face-up cards in my team's")
                team = next(t for t in raw["teams"] if seat in t)
                expected = sorted(encoder.index[c] for o in team for c in raw["piles"][o]["face_up"])
                assert sorted(np.flatnonzero(ups)) == expected
                sizes = _block(encoder, vector, "other seats' hand sizes")
                n = len(raw["hand_sizes"])
                for k in range(1, n):
                    assert sizes[k - 1] == np.float32(raw["hand_sizes"][(seat + k) % n] / encoder.hand)
        aec.step(int(rng.choice([i for i, _ in aec.legal_moves()])))
