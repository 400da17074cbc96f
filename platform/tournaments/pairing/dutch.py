"""The FIDE Dutch system through py4swiss: our history becomes the library's TRF(x) model in memory (no file),
and its pairing comes back as ours. A field the library cannot pair raises SwissPairingError."""

from __future__ import annotations

from collections.abc import Collection, Sequence

from py4swiss.engines import DutchEngine
from py4swiss.engines.common import PairingError
from py4swiss.trf import ParsedTrf
from py4swiss.trf.codes import PlayerCode
from py4swiss.trf.results import ColorToken, ResultToken, RoundResult
from py4swiss.trf.sections import PlayerSection, XSection

from tournaments.pairing.records import EntrantId, History, Pairing, Result, Round, SwissPairingError

_PLAYED = {1.0: ResultToken.WIN, 0.5: ResultToken.DRAW, 0.0: ResultToken.LOSS}
_BYE = {1.0: ResultToken.PAIRING_ALLOCATED_BYE, 0.5: ResultToken.HALF_POINT_BYE, 0.0: ResultToken.ZERO_POINT_BYE}
_NOT_PAIRED = RoundResult(id=0, color=ColorToken.BYE_OR_NOT_PAIRED, result=ResultToken.ZERO_POINT_BYE)


def to_trf(entrants: Sequence[EntrantId], results: Sequence[Result], history: History,
           absent: Collection[EntrantId] = ()) -> ParsedTrf:
    """Starting numbers follow the seed order; a round an entrant sat out (joined late) is a zero-point bye.

    The round being paired is never declared the last: FIDE relaxes the absolute colour rule for top scorers
    in the last round (C.04.3 A.7), and Kozyr keeps every seat difference within 2 instead."""
    number = {e: k + 1 for k, e in enumerate(entrants)}
    rows: dict[EntrantId, dict[int, RoundResult]] = {e: {} for e in entrants}
    for r in results:
        if r.is_bye:
            rows[r.first][r.round] = RoundResult(id=0, color=ColorToken.BYE_OR_NOT_PAIRED, result=_BYE[r.score])
            continue
        rows[r.first][r.round] = RoundResult(id=number[r.second], color=ColorToken.WHITE, result=_PLAYED[r.score])
        rows[r.second][r.round] = RoundResult(
            id=number[r.first], color=ColorToken.BLACK, result=_PLAYED[1.0 - r.score]
        )
    played = history.rounds_played
    sections = [
        PlayerSection(
            code=PlayerCode.PLAYER,
            starting_number=number[e],
            points_times_ten=round(history.score[e] * 10),
            rank=number[e],
            results=[rows[e].get(k, _NOT_PAIRED) for k in range(1, played + 1)],
        )
        for e in entrants
    ]
    # absent entrants are "zeroed" (XXZ): in the history, not paired this round
    x_section = XSection(number_of_rounds=played + 2, zeroed_ids={number[e] for e in absent})
    return ParsedTrf(player_sections=sections, x_section=x_section)


def dutch_round(entrants: Sequence[EntrantId], results: Sequence[Result], history: History,
                absent: Collection[EntrantId] = ()) -> Round:
    trf = to_trf(entrants, results, history, absent)
    try:
        found = DutchEngine.generate_pairings(trf)
    except PairingError as error:
        raise SwissPairingError(f"the Dutch system cannot pair round {history.rounds_played + 1}: {error}") from error
    pairings, byes = [], []
    for p in found:
        if p.black == 0:
            byes.append(entrants[p.white - 1])
        else:
            pairings.append(Pairing(entrants[p.white - 1], entrants[p.black - 1]))
    return Round(tuple(pairings), tuple(byes))
