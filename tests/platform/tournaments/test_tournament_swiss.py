"""Swiss pairing properties over random fields and results (hypothesis): every round complete, no rematch, at
most one bye each, seat balance within 2, and score groups respected — checked against brute force on small
fields for the weighted engine, and as invariants for large fields (the block decomposition) and the FIDE Dutch
engine (py4swiss)."""

import pytest
from hypothesis import HealthCheck, given, reject, settings
from hypothesis import strategies as st

from tournaments.pairing.records import Result, SwissPairingError, bye, fold
from tournaments.pairing.seats import ABSOLUTE, seat_preference
from tournaments.pairing.swiss import pair_round, rank_order

SCORES = st.sampled_from([0.0, 0.5, 1.0])


def play(n, rounds, draw, engine):
    """Pair and play `rounds` rounds; `draw` supplies each match score. Returns per-round pairings and results."""
    entrants = [f"bot{i:03d}" for i in range(n)]
    results, played = [], []
    for r in range(1, rounds + 1):
        before = list(results)
        try:
            paired = pair_round(entrants, results, total_rounds=rounds, engine=engine)
        except SwissPairingError:
            assert engine == "dutch", "only the bare Dutch engine may give up (on FIDE's absolute seat rule)"
            reject()
        played.append((before, paired))
        results += [Result(r, p.first, p.second, draw()) for p in paired.pairings]
        results += [bye(r, b) for b in paired.byes]
    return entrants, played, results


def check_invariants(entrants, played, results):
    met, byes = set(), set()
    for _, paired in played:
        assert sorted(paired.entrants()) == sorted(entrants), "every entrant exactly once a round"
        assert len(paired.byes) == len(entrants) % 2
        for p in paired.pairings:
            key = frozenset((p.first, p.second))
            assert key not in met, f"rematch {p}"
            met.add(key)
        for b in paired.byes:
            assert b not in byes, f"second bye for {b}"
            byes.add(b)
    history = fold(entrants, results)
    for e in entrants:
        running = 0
        for s in history.seats[e]:
            running += s
            assert abs(running) <= 2, f"{e} seat difference {running}"


def seat_rounds(n):
    return st.integers(1, max(1, (n - 1) // 2))


@st.composite
def fields(draw, smallest=2, largest=12):
    n = draw(st.integers(smallest, largest))
    rounds = draw(seat_rounds(n))
    return n, rounds


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(fields(), st.data(), st.sampled_from(["auto", "weighted"]))
def test_rounds_are_complete_without_rematch_or_second_bye_and_seats_stay_balanced(field, data, engine):
    n, rounds = field
    entrants, played, results = play(n, rounds, lambda: data.draw(SCORES), engine)
    check_invariants(entrants, played, results)


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(97, 260), st.integers(3, 7), st.randoms(use_true_random=False))
def test_large_fields_paired_block_by_block_keep_every_rule(n, rounds, rng):
    entrants, played, results = play(n, rounds, lambda: rng.choice([0.0, 0.5, 1.0]), "weighted")
    check_invariants(entrants, played, results)
    for before, paired in played:
        score = fold(entrants, before).score
        # score groups: a large field never needs to pair entrants more than one point apart
        assert all(abs(score[p.first] - score[p.second]) <= 1 for p in paired.pairings)


def matchings(people, allowed, may_bye):
    """Every complete pairing of `people` (a list) with allowed pairs; one bye if odd."""
    if not people:
        yield [], None
        return
    if len(people) % 2:
        for b in people:
            if may_bye(b):
                rest = [p for p in people if p != b]
                for pairs, _ in matchings(rest, allowed, may_bye):
                    yield pairs, b
        return
    head, rest = people[0], people[1:]
    for k, other in enumerate(rest):
        if allowed(head, other):
            for pairs, b in matchings(rest[:k] + rest[k + 1:], allowed, may_bye):
                yield [(head, other), *pairs], b


def complete_pairings(people, history, also_allowed=None):
    """Every complete pairing without rematch or second bye (and passing `also_allowed`, when given)."""
    def allowed(a, b):
        return b not in history.opponents[a] and (also_allowed is None or also_allowed(a, b))

    return matchings(list(people), allowed, lambda b: history.byes[b] == 0)


def criteria(pairs, bye_to, history, order):
    """The weighted engine's criteria 2-4 (to maximise): no same-absolute clash, bye low, small score gaps."""
    prefs = {e: seat_preference(history.seats[e]) for e in order}
    clashes = sum(1 for a, b in pairs if prefs[a].side == prefs[b].side != 0
                  and prefs[a].strength == prefs[b].strength == ABSOLUTE)
    bye_rank = order.index(bye_to) if bye_to is not None else 0
    gaps = sum(round(2 * (history.score[a] - history.score[b])) ** 2 for a, b in pairs)
    return -clashes, bye_rank, -gaps


@settings(max_examples=120, deadline=None)
@given(st.integers(3, 9).flatmap(lambda n: st.tuples(st.just(n), seat_rounds(n))), st.data())
def test_the_weighted_engine_is_optimal_for_score_groups_and_the_bye(field, data):
    n, rounds = field
    entrants, played, _ = play(n, rounds, lambda: data.draw(SCORES), "weighted")
    for before, paired in played:
        history = fold(entrants, before)
        order = rank_order(entrants, history)
        got = criteria([(p.first, p.second) for p in paired.pairings], next(iter(paired.byes), None), history, order)
        best = max(
            criteria(pairs, b, history, order)
            for pairs, b in complete_pairings(order, history)
        )
        assert got == best


@settings(max_examples=80, deadline=None)
@given(st.integers(4, 10).flatmap(lambda n: st.tuples(st.just(n), seat_rounds(n))), st.data())
def test_the_dutch_engine_floats_the_fewest_from_the_top_bracket_down(field, data):
    n, rounds = field
    entrants, played, _ = play(n, rounds, lambda: data.draw(SCORES), "dutch")
    for before, paired in played:
        history = fold(entrants, before)
        prefs = {e: seat_preference(history.seats[e]) for e in entrants}
        complete = list(complete_pairings(entrants, history, lambda a, b, prefs=prefs: not (
            prefs[a].side == prefs[b].side != 0 and prefs[a].strength == prefs[b].strength == ABSOLUTE)))
        # compared with every complete pairing whose bye goes to the same score as the Dutch system's
        bye_score = history.score[paired.byes[0]] if paired.byes else None
        got = downfloats([(p.first, p.second) for p in paired.pairings], history)
        best = min(downfloats(pairs, history) for pairs, b in complete if b is None or history.score[b] == bye_score)
        assert got == best


def downfloats(pairs, history):
    """Per score bracket from the top, how many entrants at or above it meet someone below it (FIDE C6 counts
    these downfloaters bracket by bracket, the higher brackets first)."""
    brackets = sorted(set(history.score.values()), reverse=True)
    return [sum(1 for a, b in pairs if min(history.score[a], history.score[b]) < s <= max(history.score[a],
                                                                                           history.score[b]))
            for s in brackets]


@settings(max_examples=80, deadline=None)
@given(st.integers(3, 9).filter(lambda n: n % 2).flatmap(lambda n: st.tuples(st.just(n), seat_rounds(n))),
       st.data())
def test_the_bye_goes_to_the_lowest_score_that_still_completes_the_round(field, data):
    n, rounds = field
    entrants, played, _ = play(n, rounds, lambda: data.draw(SCORES), "auto")
    for before, paired in played:
        history = fold(entrants, before)
        possible = [b for _, b in complete_pairings(entrants, history)]
        assert history.score[paired.byes[0]] == min(history.score[b] for b in possible)


def test_auto_overrides_a_dutch_bye_that_is_not_the_lowest_score():
    # after round 1 (bot0 v bot2 lost by bot0, bot3 v bot1 drawn, bye bot4) the Dutch system keeps the 1-point
    # bracket intact and gives the bye to a 0.5 entrant; the lowest that can take it is bot0 with 0
    entrants = ["bot0", "bot1", "bot2", "bot3", "bot4"]
    results = [Result(1, "bot0", "bot2", 0.0), Result(1, "bot3", "bot1", 0.5), bye(1, "bot4")]
    assert pair_round(entrants, results, engine="dutch").byes == ("bot3",)
    assert pair_round(entrants, results).byes == ("bot0",)


def test_round_one_pairs_the_top_half_against_the_bottom_half_with_alternating_seats():
    for engine in ("dutch", "weighted"):
        paired = pair_round(list(range(1, 9)), engine=engine)
        assert [(p.first, p.second) for p in paired.pairings] == [(1, 5), (6, 2), (3, 7), (8, 4)], engine


def test_the_bye_goes_to_the_lowest_ranked_without_one():
    entrants = ["a", "b", "c", "d", "e"]
    results = [Result(1, "a", "c", 1.0), Result(1, "d", "b", 0.0), bye(1, "e")]
    for engine in ("dutch", "weighted"):
        paired = pair_round(entrants, results, engine=engine)
        # c and d have 0 points; d is ranked lower (seed 4) and has had no bye
        assert paired.byes == ("d",), engine


def test_absent_entrants_are_left_out_but_their_games_still_count():
    entrants = ["a", "b", "c", "d", "e"]
    results = [Result(1, "a", "e", 0.0), Result(1, "b", "c", 1.0), bye(1, "d")]
    for engine in ("dutch", "weighted"):
        paired = pair_round(entrants, results, engine=engine, absent=["e"])
        assert sorted(paired.entrants()) == ["a", "b", "c", "d"] and paired.byes == (), engine
        met = {frozenset((p.first, p.second)) for p in paired.pairings}
        assert frozenset(("b", "c")) not in met, engine


def test_a_round_that_cannot_be_completed_is_refused():
    entrants = ["a", "b"]
    results = [Result(1, "a", "b", 1.0)]
    for engine in ("dutch", "weighted", "auto"):
        with pytest.raises(SwissPairingError, match="round 2"):
            pair_round(entrants, results, engine=engine)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"entrants": ["a"]}, "at least 2"),
        ({"entrants": ["a", "b"], "engine": "monrad"}, "unknown Swiss engine"),
        ({"entrants": ["a", "b"], "results": [Result(1, "a", "z", 1.0)]}, "'z', who is not an entrant"),
        ({"entrants": ["a", "b"], "results": [Result(1, "a", "b", 1.0)], "total_rounds": 1}, "beyond the planned"),
        ({"entrants": ["a", "b", "c"], "results": [Result(1, "a", "b", 1.0), bye(1, "a")]}, "'a' has two results"),
        ({"entrants": ["a", "b", "c"], "absent": ["z"]}, "absent entrant 'z'"),
        ({"entrants": ["a", "b", "c"], "absent": ["a", "b"]}, "at least 2 entrants present"),
    ],
)
def test_bad_input_gets_a_clear_error(kwargs, message):
    with pytest.raises(ValueError, match=message):
        pair_round(**kwargs)


def test_results_with_impossible_scores_are_refused():
    with pytest.raises(ValueError, match=r"expected 0, 0\.5 or 1"):
        Result(1, "a", "b", 2.0)


def test_seat_preferences_follow_the_fide_colour_rules():
    assert seat_preference([]).strength == 0
    assert seat_preference([1, -1]) == seat_preference([-1, 1, -1, 1, -1, 1, -1, 1, 1, -1])
    assert (seat_preference([1]).side, seat_preference([1]).strength) == (-1, 2)
    assert (seat_preference([1, 1]).side, seat_preference([1, 1]).strength) == (-1, ABSOLUTE)
    assert (seat_preference([1, -1, -1]).side, seat_preference([1, -1, -1]).strength) == (1, ABSOLUTE)
