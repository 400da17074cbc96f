"""The Bura family's rule options and named presets (RULES.md §1).

One frozen ``Rules`` covers Bura (claim 31), Burkozel and Echki (most of the 120 points); every house
rule is a validated option naming the seed document it comes from. Options that do not apply to the
chosen ``goal`` are accepted and ignored (e.g. ``unclaimed`` in Burkozel), so a preset can be switched
between goals with one override.
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass
from functools import cached_property

from arena.cards import BURA_DECKS
from arena.games.base import RuleOptionError
from arena.games.options import option, validate_rules

MATCH_FORMS = "penalty:N | rubber:N | deals:N (e.g. penalty:12, rubber:11, rubber:21, deals:10)"
_MATCH_RE = re.compile(r"^(penalty|rubber|deals):([1-9][0-9]{0,3})$")


def parse_match(text: str) -> tuple[str, int]:
    """``"penalty:12"`` → ``("penalty", 12)``; raises RuleOptionError for anything else."""
    found = _MATCH_RE.match(text) if isinstance(text, str) else None
    if not found:
        raise RuleOptionError(f"option 'match': {text!r} is not allowed; allowed: {MATCH_FORMS}")
    return found.group(1), int(found.group(2))


def _match_problem(text: str) -> str | None:
    try:
        parse_match(text)
    except RuleOptionError:
        return f"{text!r} is not a match form"
    return None


@dataclass(frozen=True)
class Rules:
    players: int = option(2, between=(2, 6), source="RULES.md §1 table; 002 (Russian): 2 to 6 players",
                          doc="number of seats, clockwise 0..n-1")
    teams: bool = option(False, source="RULES.md §1 burkozel-pairs; 002 (Russian): pair on pair",
                         doc="two teams, partners opposite (seats 0+2 and 1+3); needs 4 players")
    deck: int = option(36, choices=(36, 32, 24), source="002 (Russian): 36 or 32 cards; 000 (Uzbek): 24 (A-9)",
                       doc="36 = A-6, 32 = A-7, 24 = A-9")
    hand: int = option(3, between=(3, 6), source="RULES.md §1 table: Bura 3, Burkozel 4, Echki 6",
                       doc="cards per hand; also the most cards a lead may hold")
    goal: str = option("claim", choices=("claim", "points"),
                       source="RULES.md §1: Bura claims 31; Burkozel/Echki play out for most of 120 (000, 002)",
                       doc="claim: the deal is won by a correct claim of 31; points: by the most trick points")
    combinations: str = option("bura", choices=("bura", "burkozel"),
                               source="RULES.md §1 Combinations: 3-card (002, 000) / 4-card (003, 002, 000)",
                               doc="bura: Bura > three aces > small Moscow > Molodka; "
                                   "burkozel: Bura > Four ends > Molodka > Moscow")
    trump_card: str = option("bottom", choices=("bottom", "returned"),
                             source="002 (Russian) and 000 (Uzbek): under the stock; 002/003 Burkozel: returned",
                             doc="bottom: face up under the stock, drawn last; returned: shown, then put back on "
                                 "top of the stock and drawn first")
    dealer: str = option("winner", choices=("winner", "rotate_left", "loser"),
                         source="002 (Russian): the winner deals; 002/003/000 Burkozel: players deal in turn "
                                "('по очереди'); loser: a reading of the seeds",
                         doc="who deals the next deal: the first winner (loser) clockwise from the dealer's left, "
                             "keeping the dealer after a void or all-tied deal; or the next seat, after every deal")
    false_claim_deals: str = option("winner", choices=("winner", "claimer"),
                                    source="002 (Russian): the false claimer deals the next deal",
                                    doc="winner: the 'dealer' option decides after a false claim; claimer: the "
                                        "false claimer deals next", added_later=True)
    next_lead: str = option("taker", choices=("taker", "rotate"),
                            source="002 (Russian): the taker leads; one 002 text: every later lead passes in turn",
                            doc="who leads the next trick: the taker of the last one, or the seat after the "
                                "last leader", added_later=True)
    draw_first: str = option("taker", choices=("taker", "leader"),
                             source="002 (Russian): the taker draws first; one 002 text: the leader",
                             doc="who draws first after a trick (then clockwise): its taker or its leader",
                             added_later=True)
    discard: str = option("closed", choices=("closed", "shown_to_taker", "open"),
                          source="002 (Russian) 'закрытыми'; 000 (Uzbek) Burkozel section; 002 'Открытая бура'",
                          doc="face-down sets: seen only by their player / also by the taker / not allowed")
    false_claim: str = option("lose_double", choices=("lose", "lose_double"),
                              source="002 (Russian): loses; 000 (Uzbek): loses double",
                              doc="penalty after a false claim: 2 or 4")
    unclaimed: str = option("void", choices=("void", "most_points", "double_next"),
                            source="002 (Russian) 'разбурка': void, same dealer again; 002: the pot doubles",
                            doc="a Bura deal played out without a claim: void; won by the most points; or void "
                                "and the next scored deal's penalties doubled (stacking)")
    mixed_sets: str = option("off", choices=("off", "on"),
                             source="002 (Russian), worked example: some cards of a set face up, the rest face "
                                    "down",
                             doc="on: a responder may play part of a set face up and the rest face down "
                                 "(such a set never beats); needs discard other than open", added_later=True)
    claim_61: str = option("off", choices=("off", "on"), source="003 (Swahili) Burkozel: claim 61 on your turn",
                           doc="points goal only: the taker of a trick may claim 61 before drawing")
    molodka: str = option("out_of_turn", choices=("out_of_turn", "in_turn"),
                          source="002 (Russian) 'ходит не в очередь'; 000 (Uzbek): waits its turn",
                          doc="whether a Molodka leads out of turn")
    moscow: str = option("lead", choices=("lead", "instant_win"),
                         source="002 (Russian): leads out of turn; 000 (Uzbek): wins at once, even against a Bura",
                         doc="three aces lead out of turn, or win the deal at once (then above Bura)")
    moscow_needs_trump_ace: bool = option(False, source="000 (Uzbek): variant, one of the aces a trump; "
                                                        "003/002 Burkozel: three aces with the trump ace",
                                          doc="Moscow counts only if the trump ace is among the aces")
    small_moscow: str = option("off", choices=("off", "sixes", "tens"),
                               source="000 (Uzbek): three sixes with the trump six (variant: tens)",
                               doc="bura combinations only: three sixes/tens including the trump one lead "
                                   "out of turn, behind three aces")
    combo_tie: str = option("higher_cards", choices=("higher_cards", "turn_order"),
                            source="003 (Swahili), 002 Burkozel 'у кого карты старше'; 002 Bura 'чей ход раньше', 000",
                            doc="two holders of the same combination: the higher cards win (equal: the earlier in "
                                "turn order from the leader), or the earlier in turn order", added_later=True)
    bura_tie: str = option("higher_cards", choices=("higher_cards", "playoff", "void"),
                           source="002 (Russian): a play-off; 000 (Uzbek): all cards are cancelled",
                           doc="two instant-win combinations of one kind: the higher cards; a play-off (the first "
                               "leads the combination's cards, the other answers, a beating set wins); or a void "
                               "deal", added_later=True)
    out_of_turn_lead: str = option("any", choices=("any", "whole_hand"),
                                   source="002 (Russian): leads out of turn; 000 (Uzbek): 'Stop!' and the "
                                          "combination's cards are led",
                                   doc="a combination that moves the lead: any legal lead, or exactly the "
                                       "combination's cards (suits may mix), unless another player holds fewer",
                                   added_later=True)
    initial_combo: str = option("redeal", choices=("redeal", "counts"),
                                source="000 (Uzbek): the game restarts without consequences",
                                doc="a combination in the initial deal: redeal (same dealer), or it counts")
    combo_win_penalty: int = option(2, choices=(2, 4, 6),
                                    source="RULES.md §1 Scoring (the sources say 'win'; 000: 'triple win')",
                                    doc="penalty for every other player when a combination wins a deal at once")
    exactly_31: int = option(4, choices=(4, 2),
                             source="002 (Russian) 'Подсчет очков': 4 for 1 to 31; 000 (Uzbek): 2 for exactly 31",
                             doc="points goal: the penalty of a player on the boundary (31, or 21 with 3 players)",
                             added_later=True)
    no_trick_penalty: int = option(6, choices=(6, 8),
                                   source="002 (Russian): 6 for zero points; 000 (Uzbek) pairs game: 8 for no trick",
                                   doc="points goal: the penalty for taking no trick at all (tricks worth nothing "
                                       "give 6 either way)", added_later=True)
    match: str = option("penalty:12", check=_match_problem, allowed=MATCH_FORMS,
                        source="000 (Uzbek), 002 (Russian): the goat at 12; 000: rubbers of 11 or 21",
                        doc="penalty:N: first to N penalty points loses; rubber:N: first to N won deals with a "
                            "lead of 2; deals:N: a fixed number of played deals")
    deal_limit: int = option(200, between=(1, 10000), source="this platform (a guard; not in the sources)",
                             doc="the match stops after this many deals (redeals included) even if unfinished, "
                                 "so two bots that never claim cannot play void deals for ever")

    def __post_init__(self):
        validate_rules(self)
        self._check_together()

    def _check_together(self) -> None:
        need = self.hand * self.players + 1
        if need > self.deck:
            raise RuleOptionError(
                f"option 'hand': {self.hand} cards for {self.players} players plus the trump card need {need} "
                f"cards but the deck has {self.deck}; allowed: hand * players + 1 <= deck")
        if self.teams and self.players != 4:
            raise RuleOptionError(f"option 'teams': teams need 4 players (partners opposite), not "
                                  f"{self.players}; allowed: true only with players=4")
        if self.claim_61 == "on" and self.goal != "points":
            raise RuleOptionError("option 'claim_61': 'on' needs goal=points (Bura already claims 31); "
                                  "allowed: off | on")
        if self.mixed_sets == "on" and self.discard == "open":
            raise RuleOptionError("option 'mixed_sets': 'on' needs face-down cards, but discard=open plays every "
                                  "card face up; allowed: off with discard=open")
        if self.small_moscow == "sixes" and self.deck != 36:
            raise RuleOptionError(f"option 'small_moscow': a {self.deck}-card deck has no sixes; "
                                  f"allowed: off | tens")

    @cached_property
    def match_kind(self) -> str:
        return parse_match(self.match)[0]

    @cached_property
    def match_target(self) -> int:
        return parse_match(self.match)[1]

    @property
    def deck_cards(self) -> tuple[str, ...]:
        return BURA_DECKS[self.deck]

    @cached_property
    def claims_allowed(self) -> bool:
        return self.goal == "claim" or self.claim_61 == "on"

    @cached_property
    def claim_target(self) -> int | None:
        if self.goal == "claim":
            return 31
        return 61 if self.claim_61 == "on" else None

    @cached_property
    def low_threshold(self) -> int:
        """Burkozel scoring: 4 penalty points for 1..31 trick points, 1..21 with three players."""
        return 21 if self.players == 3 and not self.teams else 31


# The dataclass defaults are the engine's behaviour before each option existed, so a replay recorded
# before an option was added (and which therefore does not name it) re-runs as it was played; the presets
# set the defaults RULES.md gives them.
_BURA = Rules(combo_tie="turn_order")  # 002's Bura texts and 000: "whose turn comes first"
_ECHKI = dataclasses.replace(Rules(), hand=4, goal="points", combinations="burkozel", discard="shown_to_taker",
                             moscow_needs_trump_ace=True, combo_win_penalty=4)
# All three seeds' Burkozel sections deal in turn and return the trump card to the top of the stock.
_BURKOZEL = dataclasses.replace(_ECHKI, dealer="rotate_left", trump_card="returned")

PRESETS: dict[str, Rules] = {
    "bura": _BURA,
    "bura-3p": dataclasses.replace(_BURA, players=3),
    "burkozel": _BURKOZEL,
    "burkozel-pairs": dataclasses.replace(_BURKOZEL, players=4, teams=True),
    "echki-6": dataclasses.replace(_ECHKI, deck=32, hand=6),
}
