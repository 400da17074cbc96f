"""A bot for the platform's tests: says ready, then raises at its first request."""

import json
import sys


def choose(request):
    raise ValueError(f"no action I like among {len(request['legal_actions'])}")


for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "hello":
        print(json.dumps({"type": "ready", "name": "raiser"}), flush=True)
    elif message["type"] == "request":
        print(json.dumps({"type": "action", "id": message["id"], "action": choose(message)}), flush=True)
