"""Kozyr's own Swiss pairer: a maximum-weight matching whose weight packs, most important first,

  1. as many pairs as possible (a complete round);
  2. no two entrants with the same absolute seat preference meet (FIDE C.04.3 C3);
  3. the bye (or, inside one block, the float to the next block) goes to the lowest-ranked entrant that may
     take it — for the bye, one who has had none (FIDE C2, C5);
  4. the least total squared score difference over the pairs (score groups; FIDE C6-C7 in spirit);
  5. the fewest seat preferences refused, weighted by strength (FIDE C12-C13 in spirit);
  6. inside a score group, the top half meets the bottom half in order, 1 v k+1, 2 v k+2 (Dutch S1 v S2).

Rematches and second byes get no edge at all. A field of up to BLOCK entrants is one matching. A larger one is
cut, top down, into blocks of whole score groups (a group too large for one block is cut into stripes that keep
each S1 entrant with its S2 partner); each block is matched with the previous block's floaters, its own odd one
out floating down. If that leaves anyone unpaired the whole field is matched at once instead, so a round is
always completed when one can be. Blocks may miss the global optimum of criteria 2-6 by a little; they keep
the absolute rules, and over 512 entrants they take ~0.1 s where one matching takes 0.5-2 s.
"""

from __future__ import annotations

import numpy as np

from tournaments.pairing.matching import max_weight_matching
from tournaments.pairing.records import EntrantId, History, Pairing, Round, SwissPairingError
from tournaments.pairing.seats import ABSOLUTE, orient, seat_preference

BLOCK = 96

_BYE, _FLOAT = "bye", "float"


class _Field:
    """The whole field in pairing order, as arrays the blocks index into."""

    def __init__(self, order: list[EntrantId], history: History) -> None:
        n = len(order)
        self.order, self.n, self.history = order, n, history
        self.prefs = [seat_preference(history.seats[e]) for e in order]
        self.half_points = np.array([round(history.score[e] * 2) for e in order], dtype=np.int64)
        self.side = np.array([p.side for p in self.prefs], dtype=np.int64)
        self.strength = np.array([p.strength for p in self.prefs], dtype=np.int64)
        self.no_bye_yet = np.array([history.byes[e] == 0 for e in order])
        index = {e: k for k, e in enumerate(order)}
        self.met = np.zeros((n, n), dtype=bool)
        for e in order:
            for o in history.opponents[e]:
                if o in index:  # an absent opponent is not being paired
                    self.met[index[e], index[o]] = True
        self.max_diff = int(self.half_points.max() - self.half_points.min()) if n else 0
        sizes = {hp: int((self.half_points == hp).sum()) for hp in set(self.half_points.tolist())}
        self.half_of_group = np.array([sizes[hp] // 2 for hp in self.half_points.tolist()], dtype=np.int64)
        self.maxima = [1, 1, n, self.max_diff**2, ABSOLUTE, n]

    def solve(self, members: list[int], dummy: str | None) -> tuple[list[tuple[int, int]], int | None, list[int]]:
        """Match `members` (positions in pairing order, ascending); with a dummy, one of them is left for it.
        Returns the pairs, who got the dummy, and who stayed unmatched."""
        local = np.array(members, dtype=np.int64)
        k = len(local)
        li, lj = np.triu_indices(k, k=1)
        gi, gj = local[li], local[lj]
        keep = ~self.met[gi, gj]
        li, lj, gi, gj = li[keep], lj[keep], gi[keep], gj[keep]

        hp, side, strength = self.half_points, self.side, self.strength
        same_side = (side[gi] == side[gj]) & (side[gi] != 0)
        absolute_clash = same_side & (strength[gi] == ABSOLUTE) & (strength[gj] == ABSOLUTE)
        diff = np.abs(hp[gi] - hp[gj])
        refused = np.where(same_side, np.minimum(strength[gi], strength[gj]), 0)
        order_value = self.n - np.abs((gj - gi) - self.half_of_group[gi])
        # one column per criterion 1-6 of the module docstring; a real pair scores 0 on the bye criterion
        ones = np.ones(len(li), dtype=np.int64)
        values = np.stack([ones, (~absolute_clash).astype(np.int64), 0 * ones, self.max_diff**2 - diff**2,
                           ABSOLUTE - refused, order_value], axis=1)
        ei, ej = [li], [lj]
        vertices = k
        if dummy is not None:
            vertices += 1
            may = np.arange(k) if dummy == _FLOAT else np.flatnonzero(self.no_bye_yet[local])
            m = len(may)
            dummy_values = np.stack([np.ones(m, dtype=np.int64), np.ones(m, dtype=np.int64), 1 + local[may],
                                     np.full(m, self.max_diff**2), np.full(m, ABSOLUTE), np.full(m, self.n)], axis=1)
            ei.append(may)
            ej.append(np.full(m, k))
            values = np.concatenate([values, dummy_values])
        mate = max_weight_matching(vertices, np.concatenate(ei), np.concatenate(ej), values, self.maxima)
        pairs, got_dummy, unmatched = [], None, []
        for a in range(k):
            b = mate[a]
            if b == a:
                unmatched.append(members[a])
            elif b == k:
                got_dummy = members[a]
            elif a < b:
                pairs.append((members[a], members[b]))
        return pairs, got_dummy, unmatched


def weighted_round(order: list[EntrantId], history: History) -> Round:
    """Pair the field given in pairing order (score, then seed)."""
    field = _Field(order, history)
    n = field.n
    solved = _by_blocks(field) if n > BLOCK else None
    if solved is None:
        pairs, bye, unmatched = field.solve(list(range(n)), _BYE if n % 2 else None)
        if unmatched or (n % 2 and bye is None):
            raise SwissPairingError(
                f"round {history.rounds_played + 1} cannot be completed: every pairing left for some entrant "
                "is a rematch or a second bye"
            )
        solved = pairs, [bye] if bye is not None else []
    return _publish(field, *solved)


def _blocks(field: _Field) -> list[list[int]]:
    groups: list[list[int]] = []
    for position, hp in enumerate(field.half_points.tolist()):
        if groups and field.half_points[groups[-1][0]] == hp:
            groups[-1].append(position)
        else:
            groups.append([position])
    pieces: list[list[int]] = []
    for group in groups:
        if len(group) <= BLOCK:
            pieces.append(group)
            continue
        half = len(group) // 2
        s1, s2 = group[:half], group[half:]
        stripes = -(-len(group) // BLOCK)
        for s in range(stripes):
            pieces.append(sorted(s1[s * len(s1) // stripes:(s + 1) * len(s1) // stripes]
                                 + s2[s * len(s2) // stripes:(s + 1) * len(s2) // stripes]))
    blocks: list[list[int]] = []
    for piece in pieces:
        if blocks and len(blocks[-1]) < BLOCK // 2:
            blocks[-1].extend(piece)
        else:
            blocks.append(list(piece))
    if len(blocks) > 1 and len(blocks[-1]) < BLOCK // 2:
        blocks[-2].extend(blocks.pop())
    return blocks


def _by_blocks(field: _Field) -> tuple[list[tuple[int, int]], list[int]] | None:
    blocks = _blocks(field)
    pairs: list[tuple[int, int]] = []
    carry: list[int] = []
    for number, block in enumerate(blocks):
        members = sorted(carry + block)
        last = number == len(blocks) - 1
        dummy = (_BYE if last else _FLOAT) if len(members) % 2 else None
        got_pairs, got_dummy, unmatched = field.solve(members, dummy)
        pairs += got_pairs
        carry = unmatched + ([got_dummy] if got_dummy is not None and not last else [])
        if last:
            if unmatched or (dummy is not None and got_dummy is None):
                return None
            return pairs, [got_dummy] if got_dummy is not None else []
    return None


def _publish(field: _Field, pairs: list[tuple[int, int]], byes: list[int]) -> Round:
    """Boards in FIDE publishing order (higher score first, then the pair's sum, then the better rank), seats
    by the colour rules."""
    hp = field.half_points
    pairs = sorted((min(p), max(p)) for p in pairs)
    pairs.sort(key=lambda p: (-max(hp[p[0]], hp[p[1]]), -(hp[p[0]] + hp[p[1]]), p[0]))
    seats = field.history.seats
    pairings = []
    for board, (i, j) in enumerate(pairs):
        a, b = field.order[i], field.order[j]
        i_first = orient(field.prefs[i], field.prefs[j], seats[a], seats[b], board)
        pairings.append(Pairing(a, b) if i_first else Pairing(b, a))
    return Round(tuple(pairings), tuple(field.order[k] for k in byes))
