"""Tables for 3-6 side presets: round robin of tables spreads meetings evenly, Swiss tables group by score and
avoid repeats, byes rotate, seats rotate, team presets seat one bot per team."""

import random
from collections import Counter
from itertools import combinations

import pytest

from tournaments.pairing.tables import TableRound, seat_map, sides_per_table, swiss_tables, table_round_robin


def meetings(schedule, n):
    met = Counter(frozenset(p) for r in schedule for t in r.tables for p in combinations(t, 2))
    return [met[frozenset(p)] for p in combinations(range(n), 2)]


def most_even(total_meetings, pairs):
    q, r = divmod(total_meetings, pairs)
    return (pairs - r) * q * q + r * (q + 1) ** 2


SIZES = [(6, 3), (7, 3), (9, 3), (10, 3), (12, 3), (8, 4), (12, 4), (13, 4), (16, 4), (10, 5), (20, 5), (12, 6)]


@pytest.mark.parametrize(("n", "k"), SIZES)
def test_every_round_seats_everyone_once_and_byes_rotate(n, k):
    schedule = table_round_robin(list(range(n)), k)
    assert len(schedule) == -(-(n - 1) // (k - 1))
    for r in schedule:
        assert all(len(t) == k for t in r.tables)
        assert sorted([e for t in r.tables for e in t] + list(r.byes)) == list(range(n))
        assert len(r.byes) == n % k
    byes = Counter(b for r in schedule for b in r.byes)
    counts = [byes[e] for e in range(n)]
    assert max(counts) - min(counts) <= 1


@pytest.mark.parametrize(("n", "k"), SIZES)
def test_meetings_are_spread_close_to_the_most_even_possible(n, k):
    schedule = table_round_robin(list(range(n)), k)
    counts = meetings(schedule, n)
    ideal = most_even(sum(counts), len(counts))
    # The ideal is not always reachable (7 in threes: the only way to meet everyone once, the Fano plane, has
    # no two disjoint tables), so: within 1.35x of it, and well below random seating.
    assert sum(c * c for c in counts) <= 1.35 * ideal
    rng = random.Random(0)
    random_cost = []
    for _ in range(30):
        shuffled = []
        for r in schedule:
            people = [e for t in r.tables for e in t]
            rng.shuffle(people)
            shuffled.append(TableRound(tuple(tuple(people[i:i + k]) for i in range(0, len(people), k))))
        random_cost.append(sum(c * c for c in meetings(shuffled, n)))
    assert sum(c * c for c in counts) < 0.95 * sum(random_cost) / len(random_cost)


@pytest.mark.parametrize(("n", "k"), [(9, 3), (16, 4)])
def test_where_a_perfect_schedule_exists_it_is_found(n, k):
    # 9 in threes over 4 rounds and 16 in fours over 5 rounds: every pair exactly once (affine planes)
    assert set(meetings(table_round_robin(list(range(n)), k), n)) == {1}


@pytest.mark.parametrize(("n", "k", "rounds"), [(8, 4, 8), (12, 3, 9), (10, 5, 10)])
def test_seats_rotate_within_two(n, k, rounds):
    # the duplicate match unit rotates seats inside each match too; this keeps who opens balanced
    schedule = table_round_robin(list(range(n)), k, rounds=rounds)
    for e in range(n):
        seats = Counter(t.index(e) for r in schedule for t in r.tables if e in t)
        assert max(seats[s] for s in range(k)) - min(seats[s] for s in range(k)) <= 2


def test_the_same_seed_gives_the_same_schedule():
    assert table_round_robin(list(range(10)), 3, seed=5) == table_round_robin(list(range(10)), 3, seed=5)


def test_swiss_tables_group_by_score_in_seed_order():
    entrants = [f"e{i}" for i in range(9)]
    scores = {f"e{i}": s for i, s in enumerate([0, 5, 1, 4, 2, 3, 8, 7, 6])}
    r = swiss_tables(entrants, 3, scores)
    assert r.byes == ()
    assert [sorted(scores[e] for e in t) for t in r.tables] == [[6, 7, 8], [3, 4, 5], [0, 1, 2]]


def test_swiss_tables_bye_goes_to_the_lowest_score_without_one():
    entrants = ["a", "b", "c", "d", "e", "f", "g"]
    scores = {"a": 3, "b": 2, "c": 2, "d": 1, "e": 1, "f": 0, "g": 0}
    first = swiss_tables(entrants, 3, scores)
    assert first.byes == ("g",)  # f and g level on 0: the lower seed sits out
    second = swiss_tables(entrants, 3, scores, [first])
    assert second.byes == ("f",)


def test_swiss_tables_avoid_repeat_meetings_while_they_can():
    rng = random.Random(3)
    entrants = list(range(12))
    scores = dict.fromkeys(entrants, 0.0)
    rounds: list[TableRound] = []
    for _ in range(3):
        r = swiss_tables(entrants, 3, scores, rounds)
        rounds.append(r)
        for t in r.tables:
            for place, e in enumerate(rng.sample(t, len(t))):
                scores[e] += 2 - place
    assert max(meetings(rounds, 12)) == 1


@pytest.mark.parametrize(
    ("players", "teams", "table", "expected"),
    [
        (3, None, ["x", "y", "z"], {0: "x", 1: "y", 2: "z"}),
        (4, [[0, 2], [1, 3]], ["x", "y"], {0: "x", 2: "x", 1: "y", 3: "y"}),
    ],
)
def test_seat_map_puts_one_bot_on_every_seat_of_its_team(players, teams, table, expected):
    assert sides_per_table(players, teams) == len(table)
    assert seat_map(table, players, teams) == expected


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: table_round_robin(list(range(9)), 7), "2 to 6 sides"),
        (lambda: table_round_robin([1, 2], 3), "at least 3"),
        (lambda: table_round_robin(list(range(6)), 3, rounds=0), "rounds"),
        (lambda: swiss_tables(list(range(6)), 3, {9: 1.0}), "9, who is not an entrant"),
        (lambda: seat_map(["x"], 4, [[0, 2], [1, 3]]), "cannot fill 2 teams"),
        (lambda: seat_map(["x", "y"], 3), "cannot fill 3 seats"),
    ],
)
def test_bad_input_gets_a_clear_error(call, message):
    with pytest.raises(ValueError, match=message):
        call()
