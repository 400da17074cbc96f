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
# Matches with a seat that waits on a person or a remote connection (every casual table) come next: someone is
# waiting for the match to start. The site plays them in a worker of threads of its own (``open`` only), since
# they wait far more than they compute (docs/matches.md, "Queues and workers"); a worker given every queue
# (the tests', a one-process site) still takes them first.
# Notifications' deliveries (e-mail, webhooks) come last: a worker sends one only when no match waits, within a
# few seconds' timeout however dead the endpoint (notifications/tasks.py).
# Analyses of finished matches (analysis/) come after every match queue too: a user's "where did my bot
# lose?" waits behind every match, never the other way round (ANALYSIS_PRIORITY: never urgent either).
# Matches with an uploaded bot's seat (``sandboxed``, every kind but validation): the bot computes in its own
# process, so a worker of threads plays many at once (the ``bots`` program), as many as the host's cores and
# memory admit (config/capacity.py); a worker given every queue takes them after validations and challenges,
# before the built-in bots' ladder.
QUEUE_ORDER = ("maintenance", "open", "casual", "tournament", "validation", "challenge", "sandboxed", "ladder",
               "notify", "analysis")
OPEN_QUEUE = "open"  # Match.queue of a match with a seat that waits on a person or a remote connection
SANDBOXED_QUEUE = "sandboxed"  # Match.queue of a match with an uploaded bot's seat (not a validation)
MAINTENANCE_QUEUE = "maintenance"
ANALYSIS_QUEUE = "analysis"
NOTIFY_QUEUE = "notify"
# Within each queue, messages by priority: on Redis the lower number is taken first, and the worker asks
# for every queue's urgent messages before any queue's others. Beat's jobs and retried matches (a dead
# worker's, an infrastructure failure's) are urgent; a new match is not, so a retried ladder match is not
# sent to the back of a ladder queue kept 30 deep.
RETRY_PRIORITY = 0
MATCH_PRIORITY = 3
ANALYSIS_PRIORITY = MATCH_PRIORITY  # a message without one would be urgent on Redis
NOTIFY_PRIORITY = MATCH_PRIORITY  # never "urgent" (a message without a priority is, on Redis): after every match
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
# A Redis out of memory refuses every write (and every command inside MULTI, as kombu's deliveries and
# acknowledgements are): a channel error, which by default stops the worker, at every restart while Redis stays
# full. Retried instead, with pauses between attempts (config/worker_consumer.py, docs/operations.md "Redis").
CELERY_BROKER_CHANNEL_ERROR_RETRY = True
CELERY_WORKER_CONSUMER = "config.worker_consumer:Consumer"
# A match being played goes on while the worker reconnects (its row and lease are in the database); its message
# is acknowledged later or redelivered and ignored. Celery 6 would cancel it by default.
CELERY_WORKER_CANCEL_LONG_RUNNING_TASKS_ON_CONNECTION_LOSS = False
CELERY_BROKER_TRANSPORT_OPTIONS = {
    "visibility_timeout": MATCH_HARD_CAP_SECONDS + 1800,
    "queue_order_strategy": "priority",
    "priority_steps": [RETRY_PRIORITY, MATCH_PRIORITY],
}
CELERY_BEAT_SCHEDULE = {
    "recover-matches": {"task": "play.tasks.recover_matches", "schedule": 15.0,
                        "options": {"queue": "maintenance", "expires": 14}},
    "refit-ratings": {"task": "ratings.tasks.refit_due", "schedule": 300.0,
                      "options": {"queue": "maintenance", "expires": 290}},
    "drive-tournaments": {"task": "tournaments.tasks.drive", "schedule": 15.0,
                          "options": {"queue": "maintenance", "expires": 14}},
    "fill-ladder": {"task": "ladder.tasks.fill_ladder", "schedule": 10.0,
                    "options": {"queue": "maintenance", "expires": 9}},
    # Deliveries whose message was lost (the broker away when they were queued) are queued again.
    "resend-notifications": {"task": "notifications.tasks.resend_stale", "schedule": 300.0,
                             "options": {"queue": "maintenance", "expires": 290}},
    # Finds the open-data dumps due (a month over) and queues one build each (opendata/tasks.py, docs/data.md).
    "build-open-data": {"task": "opendata.tasks.build_due", "schedule": 3600.0,
                        "options": {"queue": "maintenance", "expires": 3500}},
    # Deletes stderr logs and private replays past their retention (matches/prune.py, docs/operations.md).
    "prune-files": {"task": "matches.tasks.prune_files", "schedule": 3600.0,
                    "options": {"queue": "maintenance", "expires": 3500}},
}
