"""Celery's settings, read by config.celery from Django's settings (namespace CELERY_).

The database row is the truth and the message only a wake-up call, so these settings are about not
wasting work: a worker takes one match at a time (prefetch 1), acknowledges it only when done (acks
late; a killed worker's message is redelivered and the row's lease decides who plays), and a message
stays invisible for longer than the longest match before Redis redelivers it.
"""

from __future__ import annotations

from kombu import Exchange, Queue

# Highest priority first: the worker consumes its queues in this order. Beat's jobs (recovery, ladder fills,
# tournament progress, refits) come first: they take milliseconds, and behind always-full match queues they
# would expire unread, so a killed worker's matches were never recovered. A worker whose every process is
# in a long match cannot take them at all: the site also runs a worker of its own for `maintenance` only
# (deploy/supervisord.conf, docker-compose.yml, docs/operations.md).
# Casual matches come next: a person is waiting at the table's page for the match to start.
QUEUE_ORDER = ("maintenance", "casual", "tournament", "validation", "challenge", "ladder")
MAINTENANCE_QUEUE = "maintenance"
# Within each queue, messages by priority: on Redis the lower number is taken first, and the worker asks
# for every queue's urgent messages before any queue's others. Beat's jobs and retried matches (a dead
# worker's, an infrastructure failure's) are urgent; a new match is not, so a retried ladder match is not
# sent to the back of a ladder queue kept 30 deep.
RETRY_PRIORITY = 0
MATCH_PRIORITY = 3
CELERY_TASK_ROUTES = {"matches.tasks.play_match": {"priority": MATCH_PRIORITY}}  # a publish may say otherwise
MATCH_HARD_CAP_SECONDS = 2 * 3600  # no match, however slow its bots, holds a worker longer than this

# One direct exchange per queue, so a message published to a queue lands in that queue only.
CELERY_TASK_QUEUES = tuple(Queue(name, Exchange(name, type="direct"), routing_key=name) for name in QUEUE_ORDER)
CELERY_TASK_DEFAULT_QUEUE = "maintenance"
CELERY_TASK_DEFAULT_EXCHANGE = "maintenance"
CELERY_TASK_DEFAULT_ROUTING_KEY = "maintenance"
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_IGNORE_RESULT = True
CELERY_TASK_TIME_LIMIT = MATCH_HARD_CAP_SECONDS + 300
CELERY_TASK_SOFT_TIME_LIMIT = MATCH_HARD_CAP_SECONDS
CELERY_WORKER_HIJACK_ROOT_LOGGER = False
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_BROKER_TRANSPORT_OPTIONS = {
    "visibility_timeout": MATCH_HARD_CAP_SECONDS + 1800,
    "queue_order_strategy": "priority",
    "priority_steps": [RETRY_PRIORITY, MATCH_PRIORITY],
}
CELERY_BEAT_SCHEDULE = {
    "recover-matches": {"task": "matches.tasks.recover_matches", "schedule": 15.0,
                        "options": {"queue": "maintenance", "expires": 14}},
    "refit-ratings": {"task": "ratings.tasks.refit_due", "schedule": 300.0,
                      "options": {"queue": "maintenance", "expires": 290}},
    "drive-tournaments": {"task": "tournaments.tasks.drive", "schedule": 15.0,
                          "options": {"queue": "maintenance", "expires": 14}},
    "fill-ladder": {"task": "ladder.tasks.fill_ladder", "schedule": 10.0,
                    "options": {"queue": "maintenance", "expires": 9}},
}
