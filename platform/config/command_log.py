"""Run one manage.py command with its messages as log lines: `python -m config.command_log await_site …`.

A command writes its messages to stdout and stderr as plain text; the image's entry point runs a few before
its role starts (the wait for the database), and in production (``KOZYR_LOG_FORMAT=json``) those lines landed
among the JSON ones, which a log collector cannot parse. Here each line the command writes is logged instead,
through settings.LOGGING (stdout's at INFO, stderr's at WARNING, under the logger ``kozyr.<command>``), and a
failed command is one ERROR line and exit status 1, as manage.py's.
"""

from __future__ import annotations

import io
import logging
import os
import sys


class LogWriter(io.TextIOBase):
    """A text stream whose every complete line becomes one log record."""

    def __init__(self, log: logging.Logger, level: int):
        self.log, self.level, self.pending = log, level, ""

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        self.pending += text
        *lines, self.pending = self.pending.split("\n")
        for line in lines:
            if line.strip():
                self.log.log(self.level, line.rstrip())
        return len(text)

    def flush(self) -> None:
        if self.pending.strip():
            self.log.log(self.level, self.pending.rstrip())
        self.pending = ""


def main(argv: list[str]) -> int:
    if not argv:
        print("usage: python -m config.command_log COMMAND [ARGUMENT …]", file=sys.stderr)
        return 2
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django
    from django.core.management import call_command
    from django.core.management.base import CommandError

    django.setup()  # a bad setting ends here with its one line, as under manage.py
    log = logging.getLogger(f"kozyr.{argv[0]}")
    out, err = LogWriter(log, logging.INFO), LogWriter(log, logging.WARNING)
    try:
        call_command(*argv, stdout=out, stderr=err)
    except CommandError as error:
        log.error("%s: %s", argv[0], error)
        return 1
    finally:
        out.flush()
        err.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
