"""Double-fork a setsid daemon that keeps stdout open and never stops, then exit."""
import os
import time

if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        while True:
            time.sleep(0.1)
    os._exit(0)
print('{"type": "ready"}', flush=True)
while True:
    time.sleep(0.1)
