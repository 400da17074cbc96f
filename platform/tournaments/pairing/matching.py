"""Maximum-weight matching on a general graph through py4swiss's compiled blossom matcher (the bbpPairings
algorithm), with several criteria packed lexicographically into one arbitrary-width weight."""

from __future__ import annotations

import numpy as np
from py4swiss.dynamicuint import DynamicUint
from py4swiss.matching_computer import ComputerDutchOptimality


def max_weight_matching(vertices: int, ei: np.ndarray, ej: np.ndarray, values: np.ndarray, maxima: list[int]):
    """`values[k]` holds edge (ei[k], ej[k])'s criteria, most important first, each in 0..maxima[c]. Returns
    mate[v] (v itself when unmatched) of a matching maximising the criteria in order: any gain in one criterion
    outweighs every loss in all later ones."""
    in_matching = vertices // 2 + 1
    multipliers, acc_max = [], 0
    for tier_max in reversed(maxima):
        multiplier = in_matching * acc_max + 1
        multipliers.append(multiplier)
        acc_max = tier_max * multiplier + acc_max
    multipliers.reverse()

    max_weight = DynamicUint(1)
    max_weight.shift_grow(acc_max.bit_length() + 2)  # the matcher asks for two bits of headroom
    max_weight >>= 1
    max_weight -= (max_weight & 0) | 1
    zero = max_weight & 0

    computer = ComputerDutchOptimality(vertices, max_weight)
    for _ in range(vertices):
        computer.add_vertex()
    if len(values):
        # one int64 key per distinct criteria row (mixed radix), so each distinct weight is built once
        radix = np.cumprod([1] + [m + 1 for m in reversed(maxima[1:])])[::-1]
        _, first_of, inverse = np.unique(values @ radix, return_index=True, return_inverse=True)
        weights = [_dynamic(sum(int(v) * m for v, m in zip(values[k], multipliers, strict=True)), zero)
                   for k in first_of]
        set_weight = computer.set_edge_weight
        for i, j, k in zip(ei.tolist(), ej.tolist(), inverse.reshape(-1).tolist(), strict=True):
            set_weight(i, j, weights[k])
    computer.compute_matching()
    return computer.get_matching()


def _dynamic(value: int, zero: DynamicUint) -> DynamicUint:
    """A Python int as a DynamicUint of the matcher's width (its operators take 32 bits at a time)."""
    weight = zero & 0
    chunks = []
    while value:
        chunks.append(value & 0xFFFFFFFF)
        value >>= 32
    for chunk in reversed(chunks):
        weight <<= 32
        weight |= chunk
    return weight
