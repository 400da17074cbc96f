"""Close stdout (or stdin) and keep running: the worker must see the closed pipe at once, not at the wall limit."""
import os
import sys
import time

which = sys.argv[1]
print('{"type": "ready"}', flush=True)
if which == "stdin":
    os.close(0)
    print("closed", flush=True)
else:
    sys.stdin.readline()  # the worker says when
    os.close(1)
time.sleep(60)
