"""Two bots in two sandboxes at once must not be able to talk: one raises and lowers a bit on every shared
kernel object it can reach (locks, file notifications, timestamps, the page cache), the other reads them all.
No channel may carry the pattern, and no machine-wide counter another bot could modulate may be readable."""

from __future__ import annotations

import json

import pytest

from tests.sandbox.conftest import read_until


@pytest.fixture(autouse=True)
def _bwrap_only(backend):
    if backend != "bwrap":
        pytest.skip("the bwrap backend's seccomp filter and /proc masks (the container backend: test_container*)")

PATTERN = [1, 0, 1, 1, 0, 0, 1, 0]


def test_no_bit_passes_between_two_sandboxes(launch):
    sender = launch("covert.py", "send")
    receiver = launch("covert.py", "receive")
    assert b"ready" in read_until(sender, lines=1)
    assert b"ready" in read_until(receiver, lines=1)
    decoded: dict[str, list] = {}
    for bit in PATTERN:
        sender.stdin.write(b"%d\n" % bit)
        assert read_until(sender, lines=1, seconds=20) == b"ok\n"
        receiver.stdin.write(b"probe\n")
        for channel, value in json.loads(read_until(receiver, lines=1, seconds=20)).items():
            decoded.setdefault(channel, []).append(value)
    assert decoded, "the receiver probed nothing"
    # A channel carries information as soon as what the receiver sees varies with the bit.
    leaking = {channel: values for channel, values in decoded.items() if len(set(map(str, values))) > 1}
    assert leaking == {}, f"bits got through (sent {PATTERN}): {leaking}"


def test_no_machine_wide_counter_is_readable(launch):
    proc = launch("covert.py", "exposed")
    data = read_until(proc, lines=1, seconds=20)
    assert json.loads(data) == []
