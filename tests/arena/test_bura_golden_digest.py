"""The Bura family plays exactly as it did before the engine was made faster (commit a184830).

Fixed seeds of every Bura-family preset, under a few option sets, are played by seeded random choices
(with claims, and played out) with hostile actions mixed in; at every step every seat's observation,
legal actions and new events, the full event log, the outcome, the seat to move and every rejection's
rule and message go into a sha256. The digests below were recorded from a184830, so any change in
behaviour, in key order or in a list turned tuple (``repr`` tells them apart) fails here.

``trace_digest`` is also the differential check's driver: run it over many more matches with the old
and the new engine on ``PYTHONPATH`` and compare.
"""

from __future__ import annotations

import copy
import hashlib
import random

import pytest

from arena.games import all_presets
from arena.games.base import IllegalAction
from arena.games.bura import BuraMatch
from arena.games.options import with_options

OPTION_SETS = {
    "default": {},
    "open-rotate": {"discard": "open", "next_lead": "rotate", "draw_first": "leader", "unclaimed": "most_points"},
    "mixed-shown": {"mixed_sets": "on", "discard": "shown_to_taker", "initial_combo": "counts",
                    "out_of_turn_lead": "whole_hand", "bura_tie": "playoff", "moscow": "instant_win"},
    "deck24-counts": {"deck": 24, "initial_combo": "counts", "small_moscow": "tens", "combo_tie": "higher_cards",
                      "bura_tie": "void", "match": "rubber:3", "dealer": "loser", "false_claim_deals": "claimer"},
}


def _hostile(rng: random.Random, action: dict, hand: list[str]) -> object:
    """A listed action altered (or copied) in one of the ways a bot might send it back."""
    way = rng.randrange(9)
    if way == 0:
        return {k: list(v) if isinstance(v, list) else v for k, v in action.items()}  # an equal copy
    if way == 1:
        bad = dict(action)
        bad["cards"] = list(reversed(hand))[: len(action.get("cards", [])) or 1]
        return bad
    if way == 2:
        return {**action, "extra": 1}
    if way == 3:
        return {**action, "cards": ["ZZ"]}
    if way == 4:
        return {**action, "cards": [hand[0], hand[0]] if hand else ["AS", "AS"]}
    if way == 5:
        return {**action, "face_down": "yes"}
    if way == 6:
        return {"type": "respond" if action["type"] != "respond" else "lead", "cards": action.get("cards", [])}
    if way == 7:
        return ["not", "a", "dict"]
    action["cards"] = [] if "cards" in action else action.get("cards")  # the listed dict itself, mutated
    return action


def trace_digest(preset: str, options: dict, seed: int, *, claims: bool, max_steps: int = 400,
                 hostile: float = 0.1) -> tuple[str, int]:
    """(sha256 of everything the contract handed out over the match, number of steps played)."""
    rules = with_options(all_presets()[preset][1], options)
    state = BuraMatch(rules, seed)
    rng = random.Random(seed * 7919 + 13)
    digest = hashlib.sha256()
    n = state.num_seats
    cursors = [0] * (n + 1)

    def note(item: object) -> None:
        digest.update(repr(item).encode())
        digest.update(b"\n")

    steps = 0
    while not state.is_over() and steps < max_steps:
        steps += 1
        mover = state.to_move()
        note(("to_move", mover, state.is_over()))
        for seat in range(n):
            note(state.observation(seat))
            if seat != mover:
                note(state.legal_actions(seat))
        for index, seat in enumerate([*range(n), None]):
            fresh = state.events(seat, cursors[index])
            cursors[index] += len(fresh)
            note(fresh)
        if rng.random() < 0.05:
            note(state.outcome())
        if rng.random() < 0.03:
            state = state.clone() if rng.random() < 0.5 else copy.deepcopy(state)
        legal = state.legal_actions(mover)
        note(legal)
        if not claims and legal[0]["type"] == "claim":
            choice = legal[1]
        else:
            choice = rng.choice(legal)
        if rng.random() < hostile:
            attempt = _hostile(rng, choice, state.observation(mover)["hand"])
            try:
                state.apply(mover, attempt)  # type: ignore[arg-type]
                note(("accepted", attempt))
                continue
            except IllegalAction as exc:
                note(("rejected", exc.rule, exc.detail, str(exc)))
            legal = state.legal_actions(mover)  # listed afresh: the failed attempt may have altered a dict
            choice = legal[rng.randrange(len(legal))] if claims or legal[0]["type"] != "claim" else legal[1]
        if rng.random() < 0.02:
            try:
                state.apply((mover + 1) % n, choice)
            except IllegalAction as exc:
                note(("rejected", exc.rule, exc.detail))
        state.apply(mover, choice)
    note(state.outcome())
    note(state.events(None))
    for seat in range(n):
        note(state.events(seat))
        note(state.events(seat, 3))
    note((state.to_move(), state.is_over()))
    if state.is_over():
        try:
            state.apply(0, {"type": "pass"})
        except IllegalAction as exc:
            note(("rejected", exc.rule, exc.detail))
    return digest.hexdigest(), steps


BURA_PRESETS = [name for name, (game, _) in all_presets().items() if game == "bura"]
CASES = [(preset, option_set, seed, claims) for preset in BURA_PRESETS for option_set in OPTION_SETS
         for seed, claims in ((3, True), (41, False))]

# Recorded from commit a184830 (the engine before it was made faster) with tests/arena/test_bura_golden_digest.py.
GOLDEN: dict[str, str] = {
    "bura/default/3":
        "ff40eaa23275aac42594705d7fc54f98ad9cb345394bc113705f848b68934616",
    "bura/default/41":
        "77b496ebfc8f1efd8c2af6e531c64eabc359d20a8f9d800f294854e8a5ae7149",
    "bura/open-rotate/3":
        "8caa63139a814b55a6c5f5e3491842b554d9d668b34a706ef60a624ae0113210",
    "bura/open-rotate/41":
        "29acd3e031fd117baad87fdd37126c5fd8863ecfa8b5e59d1e47b9421ea86667",
    "bura/mixed-shown/3":
        "5b2f2109617a43cccba70b7dacf261df913b53232fbbbe8ef172dd7aac901103",
    "bura/mixed-shown/41":
        "3176ccc1d30c2836e0aba788da0584ce1f07b3866cf2150841ee49ddca67c3a5",
    "bura/deck24-counts/3":
        "970655f20e6ef327329858b703be8e47d4a10d2d372f7b3424f9a78d4fda99b1",
    "bura/deck24-counts/41":
        "1b6a0935f3ea801288f2c6168ce4b60ea275bb0799e175cbe2ecd2b2c7cf08dd",
    "bura-3p/default/3":
        "9d0fb91093ce565ec1e261ad4779bd654d00afeee12b782ae5298b270680cf7a",
    "bura-3p/default/41":
        "150d0b568c254695e29c3569a697f582d20885adde9c6326b75a111f355838f5",
    "bura-3p/open-rotate/3":
        "99aa1ff16448130ec3d2b5d52bb3161af40f5c34ab67b0e32c8c71627c6185b6",
    "bura-3p/open-rotate/41":
        "f019532a01494a79075d00569e23e88bed4cbcc769d57c857c8414854641ad20",
    "bura-3p/mixed-shown/3":
        "c921e777654f81032cf0602c77320d39f743630be207ad277db214ab2079eea2",
    "bura-3p/mixed-shown/41":
        "8ea7ed2743525acba6630d2130b2f3b3f5324405beb61f80a30dce5ad398ef00",
    "bura-3p/deck24-counts/3":
        "432117a4ddbf5082466ac0be497e32ff04f8e2ef0a522ef1406c37961a641288",
    "bura-3p/deck24-counts/41":
        "a08e8061d28e90ed86d0a856e1ae41b8a67aa1a05c794ce76da8d0dcaf3109de",
    "burkozel/default/3":
        "1d763d7845538a1631c2227a9e95e8c0d9c6469ba51383b796ef51a8c535e293",
    "burkozel/default/41":
        "c76f943a9bb183ee805a25fb98f5cf720890f7aa5e4e490b64e297c638d61a2f",
    "burkozel/open-rotate/3":
        "388b60c25f189cfb633e740f708e5f248e51a9d6cddf8cc654a3bfad93ac13d9",
    "burkozel/open-rotate/41":
        "d3b57fc92f072803b21bb09625eee5ffdcddb89cb1f5f388fef04162f0ba4977",
    "burkozel/mixed-shown/3":
        "0091c4dfef25959d8ca07bfde431cc26d15c85a5289148e49b48c10333640e41",
    "burkozel/mixed-shown/41":
        "4f8b850a0bab12af724144345f781efbe8562e8ba6f426d98252668bf84c10b7",
    "burkozel/deck24-counts/3":
        "317a5289be764cf4cc2b5444a277d8f5ac0781ab5dab5eea762d9e44e9794db9",
    "burkozel/deck24-counts/41":
        "b2f10a69d8e25eda230b3d152e7bd34c6a147bd697dbebb848122ce54ae8d76a",
    "burkozel-pairs/default/3":
        "ea3e93e5943dd885b9ff6a24223e1872f98c58388618c7b7448101d6045352a3",
    "burkozel-pairs/default/41":
        "a989ba01a7d7d04c19580be862e5b3c6244b439bb65138e325e3207bbc948166",
    "burkozel-pairs/open-rotate/3":
        "871411348cdc879aff17e795a67991e3a0b81114d51ff630fe5c7c769ba955f0",
    "burkozel-pairs/open-rotate/41":
        "19223d0ded3c6dcf1bfc50d692457e8a38389e5f4b01c015e015ac609652ecd2",
    "burkozel-pairs/mixed-shown/3":
        "bec02c409f8af1dcb81c8f137ee6351f907574427dbf79ad0fe761408bf003d7",
    "burkozel-pairs/mixed-shown/41":
        "56f78d80292ff9c43aa4ed25527ddbaf6fe49c0ee75e5a31b133f5eb94a90652",
    "burkozel-pairs/deck24-counts/3":
        "b2cfc2515a5dbb0383088a3f50580234d3b771138fad364721f1507ee8b8d518",
    "burkozel-pairs/deck24-counts/41":
        "522b9d086bcca5007b0a6c48e189cb403704cde00685157f44d9c1f2f2530d42",
    "echki-6/default/3":
        "becf43046e7de2f8591e7e1c8ef6a7b3d2118bbcf073e39f10ea6dd2c0f6f41e",
    "echki-6/default/41":
        "650c4fecacd6d2ba795d386463927baee64b1675fdfe7eccb638a9b0856fef45",
    "echki-6/open-rotate/3":
        "f032890c1fe58623b294bccc2721be6cbdca961ea4e1609de582c9c986e07f12",
    "echki-6/open-rotate/41":
        "9a58427230ab25c371d0e9e7f4c8af737e5f6d1b8a71c55e45d059dffbbf2d30",
    "echki-6/mixed-shown/3":
        "af3725347af7a5324729c2f28f7f33bb520631f076bdb6165d6d6e2de9343cd3",
    "echki-6/mixed-shown/41":
        "216710290155d577e05b5ba72b41620d98bbd933480863eb84840b4c0b514d9b",
    "echki-6/deck24-counts/3":
        "e8a5d6c895604332c94ce1c529bee363eb090b99a12d0d9918c02a42d306269a",
    "echki-6/deck24-counts/41":
        "e79bae9d904410d1736893bda413b2d89e9bfa4e0ea727714421e5b11118d68d",
}


def test_every_bura_preset_is_covered():
    assert set(BURA_PRESETS) == {"bura", "bura-3p", "burkozel", "burkozel-pairs", "echki-6"}


@pytest.mark.parametrize(("preset", "option_set", "seed", "claims"), CASES,
                         ids=[f"{p}-{o}-{s}" for p, o, s, _ in CASES])
def test_the_match_hands_out_what_it_did_before(preset, option_set, seed, claims):
    found, _ = trace_digest(preset, OPTION_SETS[option_set], seed, claims=claims)
    assert found == GOLDEN[f"{preset}/{option_set}/{seed}"]
