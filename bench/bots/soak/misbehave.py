"""A bura-family bot for bench/soak.py: it plays its first legal action, but in a share of its matches it
misbehaves once, at a random early decision, the way uploaded bots do.

Its behaviour comes from ``behaviour.json`` beside it (one upload, one behaviour; the soak zips the two):
    {"kind": "crash" | "stall" | "flood-stdout" | "flood-stderr", "chance": 0.4, "within": 8}
- crash: a line of stderr, then exit status 3 (verdict crash);
- stall: sleeps past its move time and its whole bank (verdict timeout; the match holds its worker ~11 s);
- flood-stdout: junk lines instead of an answer (a protocol-error forfeit, the rest is read and dropped);
- flood-stderr: several MiB of log lines, then the answer (verdict ok: the referee keeps the last 20 lines,
  the platform the first 2,000).
With probability 1 - chance a match is played cleanly, so about that share of its uploads pass validation.
"""

import json
import os
import random
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(HERE, "behaviour.json")) as handle:
    BEHAVIOUR = json.load(handle)

rng = random.Random()  # seeded from os.urandom: each match decides for itself
misbehave_at = rng.randint(1, BEHAVIOUR.get("within", 8)) if rng.random() < BEHAVIOUR["chance"] else None
clock = {"move_ms": 1000, "bank_ms": 10000}
decisions = 0


def misbehave(kind: str) -> None:
    if kind == "crash":
        print("soak crash bot: giving up on purpose", file=sys.stderr, flush=True)
        raise SystemExit(3)
    if kind == "stall":
        print("soak stall bot: thinking for a very long time", file=sys.stderr, flush=True)
        time.sleep((clock["move_ms"] + clock["bank_ms"]) / 1000 + 5)
    elif kind == "flood-stdout":
        junk = "not json at all, just noise " * 8 + "\n"
        for _ in range(20_000):
            sys.stdout.write(junk)
        sys.stdout.flush()
    elif kind == "flood-stderr":
        line = "soak flood bot: " + "x" * 200 + "\n"
        for _ in range(BEHAVIOUR.get("lines", 25_000)):
            sys.stderr.write(line)
        sys.stderr.flush()


for raw in sys.stdin:
    message = json.loads(raw)
    kind = message["type"]
    if kind == "hello":
        clock.update(message.get("time") or {})
        print(json.dumps({"type": "ready", "name": f"soak-{BEHAVIOUR['kind']}"}), flush=True)
    elif kind == "request":
        decisions += 1
        if decisions == misbehave_at:
            misbehave(BEHAVIOUR["kind"])
        print(json.dumps({"type": "action", "id": message["id"], "action": message["legal_actions"][0]}), flush=True)
    elif kind == "goodbye":
        break
