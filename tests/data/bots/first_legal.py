"""A bot for the platform's tests: plays the first legal action after an optional delay (argv-free:
the delay comes from the file name's sibling 'delay' file when present, so one upload is one behaviour)."""

import json
import os
import sys
import time

DELAY_FILE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "delay")
DELAY = 0.0
if os.path.exists(DELAY_FILE):
    with open(DELAY_FILE) as handle:
        DELAY = float(handle.read())

for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "hello":
        print(json.dumps({"type": "ready", "name": "first-legal"}), flush=True)
    elif message["type"] == "request":
        time.sleep(DELAY)
        # stderr flushed before the answer, as docs/protocol.md says, so the line is kept under its request
        print(f"played request {message['id']}", file=sys.stderr, flush=True)
        print(json.dumps({"type": "action", "id": message["id"], "action": message["legal_actions"][0]}), flush=True)
    elif message["type"] == "goodbye":
        break
