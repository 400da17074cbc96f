"""A bot that thinks, for bench/soak.py's remote bots: it runs another bot's command and holds each action that
bot answers back for a while, as an engine that searches would, passing every other line through at once.

    python thinking.py SECONDS -- COMMAND...

The soak runs the Bura starter kit under it (`arena connect ... -- python thinking.py 0.3 -- python main.py`):
the starter answers in a millisecond, so its matches end in a second and a fault rarely finds one in play; with
a third of a second per decision (a third of the move time) a match lasts long enough to be caught, and the
clock still holds with room to spare.
"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import threading
import time


def is_action(line: bytes) -> bool:
    try:
        return json.loads(line).get("type") == "action"
    except (ValueError, AttributeError):
        return False


def main() -> int:
    if len(sys.argv) < 4 or sys.argv[2] != "--":
        print("usage: thinking.py SECONDS -- COMMAND...", file=sys.stderr)
        return 2
    think, command = float(sys.argv[1]), sys.argv[3:]
    bot = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE)

    def to_bot() -> None:
        with contextlib.suppress(BrokenPipeError):
            for line in sys.stdin.buffer:
                bot.stdin.write(line)
                bot.stdin.flush()
        with contextlib.suppress(BrokenPipeError):
            bot.stdin.close()

    threading.Thread(target=to_bot, daemon=True).start()
    try:
        for line in bot.stdout:
            if is_action(line):
                time.sleep(think)
            sys.stdout.buffer.write(line)
            sys.stdout.buffer.flush()
    except BrokenPipeError:
        bot.kill()
    return bot.wait()


if __name__ == "__main__":
    code = main()
    # At once: the thread still reading stdin would hold its lock through the interpreter's shutdown.
    os._exit(code)
