"""A well-behaved bot: say ready, then echo every line until stdin closes."""
import sys

print('{"type": "ready"}', flush=True)
for line in sys.stdin:
    sys.stdout.write(line)
    sys.stdout.flush()
