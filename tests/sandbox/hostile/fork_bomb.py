"""Fork without end; every child forks too."""
import os
import sys
import time

print('{"type": "ready"}', flush=True)
failures = 0
while True:
    try:
        os.fork()
    except OSError:
        failures += 1
        time.sleep(0.01)
    if failures == 50:
        sys.stderr.write("fork refused\n")
