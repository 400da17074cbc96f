"""Benchmark bot: answers every request with its first legal action, as fast as Python allows."""

import json
import sys

stdin, stdout = sys.stdin, sys.stdout
for line in stdin:
    message = json.loads(line)
    kind = message["type"]
    if kind == "hello":
        stdout.write('{"type":"ready","name":"first-legal"}\n')
        stdout.flush()
    elif kind == "request":
        stdout.write(json.dumps({"type": "action", "id": message["id"], "action": message["legal_actions"][0]}) + "\n")
        stdout.flush()
    elif kind == "goodbye":
        break
