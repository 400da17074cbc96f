"""Match tables: per-encounter counting, Elo with its interval, likelihood of superiority."""

import math

import pytest

from arena.stats import BotTally, elo_difference, elo_interval, likelihood_of_superiority, summary, tally


def match(ranks, bots):
    return {"ranks": ranks, "seats": [{"seat": s, "bot": b, "verdict": "ok"} for s, b in enumerate(bots)]}


def test_a_bot_playing_a_whole_team_counts_one_result_per_match():
    t = {x.bot: x for x in tally([match([1, 2, 1, 2], ["a", "b", "a", "b"])])}
    assert (t["a"].wins, t["a"].draws, t["a"].losses) == (1, 0, 0)
    assert (t["b"].wins, t["b"].draws, t["b"].losses) == (0, 0, 1)


def test_a_bot_in_two_seats_is_averaged_over_its_seats():
    t = {x.bot: x for x in tally([match([2, 1, 3], ["g", "r", "r"])])}
    assert t["g"].draws == 1 and t["g"].score == 0.5  # beat one random seat, lost to the other
    assert t["r"].games == 1


def test_elo_and_los_follow_the_standard_formulas():
    assert elo_difference(0.5) == 0
    assert elo_difference(0.75) == pytest.approx(190.8, abs=0.1)
    assert elo_difference(1.0) is None
    t = BotTally("x", wins=60, draws=20, losses=20, points=70)
    elo, low, high = elo_interval(t)
    assert low < elo < high and elo == pytest.approx(elo_difference(0.7))
    assert likelihood_of_superiority(t) == pytest.approx(0.5 * (1 + math.erf(40 / math.sqrt(160))))
    assert likelihood_of_superiority(BotTally("y", draws=3, points=1.5)) is None


def test_summary_rows_carry_score_and_counts():
    rows = summary([match([1, 2], ["a", "b"]), match([1, 1], ["b", "a"])])
    assert rows[0] == {**rows[0], "bot": "a", "wins": 1, "draws": 1, "losses": 0, "score": 0.75}


def test_a_bot_that_only_met_itself_has_no_score_rather_than_zero():
    rows = summary([match([1, 2], ["a", "a"]), match([2, 1], ["a", "a"])])
    assert rows == [{"bot": "a", "score": None, "wins": 0, "draws": 0, "losses": 0, "elo": None, "elo_low": None,
                     "elo_high": None, "los": None}]
    assert summary([]) == []


def test_all_draws_give_an_elo_of_zero_with_no_spread_and_no_likelihood():
    rows = summary([match([1, 1], ["a", "b"])] * 3)
    assert rows[0] == {**rows[0], "score": 0.5, "elo": 0.0, "elo_low": 0.0, "elo_high": 0.0, "los": None}


def test_an_aborted_match_is_neither_scored_nor_a_failure():
    from arena.stats import aborted_count, failures_by_bot

    aborted = match([1, 2], ["a", "b"])
    aborted["ended_by"] = "aborted"
    aborted["seats"][1]["verdict"] = "aborted"
    rows = summary([match([1, 1], ["a", "b"]), aborted])
    assert rows[0] == {**rows[0], "bot": "a", "wins": 0, "draws": 1, "losses": 0}
    assert failures_by_bot([aborted]) == {} and aborted_count([aborted]) == 1
