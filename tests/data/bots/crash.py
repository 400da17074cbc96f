"""A bot for the platform's tests: says ready, then dies on its first request."""

import json
import sys

for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "hello":
        print(json.dumps({"type": "ready", "name": "crasher"}), flush=True)
    elif message["type"] == "request":
        print("secret-stderr-of-the-crasher: about to fail", file=sys.stderr, flush=True)
        raise SystemExit(3)
