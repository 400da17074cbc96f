"""gunicorn's own lines (start-up, worker boots and exits, and the access log) in the site's log format.

gunicorn writes its error log and its access log in formats of its own; with ``KOZYR_LOG_FORMAT=json`` (the
production default) they were plain lines among the JSON ones, which a log collector cannot parse. This
logger class (``--logger-class config.gunicorn_logs.Logger``, set by deploy/entrypoint.sh) keeps gunicorn's
levels and its access-log atoms and writes every line it would write to stdout or stderr through one stderr
handler with the site's formatter and context filter (config/logs.py); a log file keeps gunicorn's format.
uvicorn's worker logs through the same handlers.
"""

from __future__ import annotations

import logging
import sys

from gunicorn import glogging

from config import logs


class Logger(glogging.Logger):
    def setup(self, cfg) -> None:
        super().setup(cfg)
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(logs.json_formatter() if logs.chosen_format() == "json" else logs.plain_formatter())
        handler.addFilter(logs.Context())
        handler._gunicorn = True  # type: ignore[attr-defined]  # gunicorn drops its own on a reload
        # Only the logs gunicorn writes to a stream ("-"); a log file keeps gunicorn's own lines (make run's
        # access log).
        for log, target in ((self.error_log, cfg.errorlog), (self.access_log, cfg.accesslog)):
            if target != "-":
                continue
            for old in [h for h in log.handlers if getattr(h, "_gunicorn", False)]:
                log.removeHandler(old)
            log.addHandler(handler)
