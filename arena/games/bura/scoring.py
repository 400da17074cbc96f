"""Scoring a finished deal in penalty points (RULES.md §1 "Scoring a deal and the match").

Everything here is per *team* (a team of one without the ``teams`` option): partners' trick points are
added and a penalty is written once per team. Penalties are returned before the doubling carried over
from an all-tie deal; the match applies the multiplier.
"""

from __future__ import annotations

from dataclasses import dataclass, field

CLAIM = "claim"
FALSE_CLAIM = "false-claim"
COMBINATION = "combination"
VOID = "void"
PLAYED_OUT = "played-out"
REDEAL = "redeal"


@dataclass
class DealScore:
    reason: str
    winners: list[int]  # team indices; empty when nobody won (void, all tied)
    penalties: list[int]  # per team
    doubles_next: bool = False  # an all-tie Burkozel deal, unclaimed=double_next: the next deal's penalties double
    no_winner: bool = field(init=False)

    def __post_init__(self):
        self.no_winner = not self.winners


LOSER_PENALTY = 2  # Bura: the loser of a deal (000, 002)


def false_claim_penalty(rules) -> int:
    return 4 if rules.false_claim == "lose_double" else 2


def points_table(points: int, rules, tricks: int = 1) -> int:
    """Burkozel/Echki: 2 over the threshold, 4 from 1 to the threshold, 6 for no points (002).

    ``exactly_31=2`` gives 2 on the threshold itself (000); ``no_trick_penalty=8`` gives 8 to a team that
    took no trick at all (000's pairs game), tricks worth nothing still 6.
    """
    if points == 0:
        return rules.no_trick_penalty if tricks == 0 else 6
    if points == rules.low_threshold:
        return rules.exactly_31
    return 4 if points < rules.low_threshold else 2


def score_claim(rules, team_points: list[int], claimer: int, team_tricks: list[int]) -> DealScore:
    """A claim by ``claimer``'s team after taking a trick; the claim is checked against the target."""
    teams = len(team_points)
    if team_points[claimer] < rules.claim_target:
        penalties = [false_claim_penalty(rules) if t == claimer else 0 for t in range(teams)]
        return DealScore(FALSE_CLAIM, [t for t in range(teams) if t != claimer], penalties)
    if rules.goal == "claim":
        penalties = [0 if t == claimer else LOSER_PENALTY for t in range(teams)]
    else:  # claim 61 in Burkozel: the claimer wins, the others pay by their own trick points
        penalties = [0 if t == claimer else points_table(team_points[t], rules, team_tricks[t])
                     for t in range(teams)]
    return DealScore(CLAIM, [claimer], penalties)


def score_combination(rules, teams: int, holder: int) -> DealScore:
    penalties = [0 if t == holder else rules.combo_win_penalty for t in range(teams)]
    return DealScore(COMBINATION, [holder], penalties)


def score_played_out(rules, team_points: list[int], team_tricks: list[int]) -> DealScore:
    """The deck is played out: Bura without a claim, or the normal end of Burkozel/Echki."""
    teams = len(team_points)
    if rules.goal == "claim" and rules.unclaimed != "most_points":
        return DealScore(VOID, [], [0] * teams, doubles_next=rules.unclaimed == "double_next")
    top = max(team_points)
    winners = [t for t in range(teams) if team_points[t] == top]
    if len(winners) == teams:  # all tied: 60:60, 40:40:40
        if rules.goal == "claim":
            return DealScore(VOID, [], [0] * teams)
        return DealScore(PLAYED_OUT, [], [0] * teams, doubles_next=True)
    if rules.goal == "claim":
        penalties = [0 if t in winners else LOSER_PENALTY for t in range(teams)]
    else:
        penalties = [0 if t in winners else points_table(team_points[t], rules, team_tricks[t])
                     for t in range(teams)]
    return DealScore(PLAYED_OUT, winners, penalties)
