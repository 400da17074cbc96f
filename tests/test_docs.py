"""docs/protocol.md is the bot authors' contract: its examples must be valid and match what the code sends."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from arena import protocol
from arena.games import new_match, resolve

DOCS = Path(__file__).resolve().parent.parent / "docs"
PROTOCOL = (DOCS / "protocol.md").read_text()


def json_blocks(text: str) -> list[str]:
    return re.findall(r"```json\n(.*?)```", text, flags=re.S)


@pytest.mark.parametrize("page", ["protocol.md", "replay.md"])
def test_every_json_example_is_valid_json(page):
    blocks = json_blocks((DOCS / page).read_text())
    assert blocks
    for block in blocks:
        json.loads(block)


def test_the_request_example_is_exactly_what_the_referee_sends():
    example = next(json.loads(b) for b in json_blocks(PROTOCOL) if '"type":"request"' in b)
    _, rules = resolve("bura")
    state = new_match(rules, 1)
    seat = state.to_move()
    sent = protocol.request(request_id=1, decision=state.observation(seat)["decision"],
                            observation=state.observation(seat), legal_actions=state.legal_actions(seat),
                            time_left_ms=11000)
    assert example == sent


def test_the_hello_example_has_every_field_the_referee_sends():
    example = next(json.loads(b) for b in json_blocks(PROTOCOL) if '"type":"hello"' in b)
    sent = protocol.hello(game="bura", preset="bura", rules={}, seat=1, players=2, teams=[[0], [1]],
                          time={"startup_ms": 10000, "move_ms": 1000, "bank_ms": 10000})
    assert set(example) == set(sent) and example["protocol"] == protocol.PROTOCOL_VERSION


def test_every_protocol_error_code_is_documented():
    codes = [protocol.BAD_UTF8, protocol.BAD_JSON, protocol.NOT_AN_OBJECT, protocol.LINE_TOO_LONG,
             protocol.UNEXPECTED_TYPE, protocol.WRONG_ID, protocol.BAD_FIELD, protocol.OUTPUT_LIMIT]
    verdicts = [protocol.OK, protocol.TIMEOUT, protocol.CRASH, protocol.PROTOCOL_ERROR, protocol.ILLEGAL_ACTION,
                protocol.SANDBOX_FAILURE]
    for code in codes + verdicts + ["startup", "move", "not-reading", "exited", "closed-stdout", "exception",
                                    "malformed-action", "launch-failed"]:
        assert f"`{code}`" in PROTOCOL, code
    assert f"{protocol.MAX_LINE_BYTES:,} bytes" in PROTOCOL
