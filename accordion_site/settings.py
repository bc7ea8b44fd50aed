"""Settings for Accordion Live, read from the environment with safe development defaults.

Development defaults are off unless the environment turns them on, so a forgotten variable fails closed:
production gives DATABASE_URL, REDIS_URL, SECRET_KEY, DAILY_SECRET and ALLOWED_HOSTS (docs/deploy.md). With
DEVELOPMENT=1 (`make run`) and nothing else, the site runs on SQLite and the in-memory channel layer in one
process, with its own error pages; DEBUG=1 (`make dev`) adds Django's debug pages and implies DEVELOPMENT.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import dj_database_url
import environ
from django.core.exceptions import ImproperlyConfigured

BASE_DIR = Path(__file__).resolve().parent.parent


# Every variable is read through django-environ, and docs/deploy.md's table lists each one with its
# default (tests/site/test_settings_table.py keeps the two in step). A value that starts with `$` names
# another variable (django-environ's proxy); `\$` is a literal `$`.
env = environ.Env()
env.escape_proxy = True


def env_list(name: str, default: list[str]) -> list[str]:
    """A comma-separated list, each item trimmed, empty items dropped."""
    return [item.strip() for item in env.list(name, default=default) if item.strip()]


# Django's debug pages (a traceback, the URL patterns) instead of the site's own error pages: only when a
# developer asks for them.
DEBUG = env.bool("DEBUG", default=False)
# This machine, for development: a fixed SECRET_KEY, a derived DAILY_SECRET, loopback hosts, plain HTTP,
# static files served from their sources.
DEVELOPMENT = DEBUG or env.bool("DEVELOPMENT", default=False)

_DEVELOPMENT_SECRET_KEY = "development-only-secret-key-never-use-in-production"
SECRET_KEY = env.str("SECRET_KEY", default=_DEVELOPMENT_SECRET_KEY if DEVELOPMENT else "")
# deploy/accordion-live.env.example's placeholders start so: a copied example must not run as is.
_PLACEHOLDER = "change-me"
if not DEVELOPMENT and (
    not SECRET_KEY
    or SECRET_KEY == _DEVELOPMENT_SECRET_KEY
    or len(SECRET_KEY) < 50
    or SECRET_KEY.startswith(_PLACEHOLDER)
):
    raise ImproperlyConfigured("Set SECRET_KEY (at least 50 random characters) when DEVELOPMENT and DEBUG are off.")

ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", ["127.0.0.1", "localhost", "[::1]"] if DEVELOPMENT else [])
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", [])

INSTALLED_APPS = [
    "daphne",
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "channels",
    "csp",
    "rest_framework",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "accounts",
    "games",
    "games.races",
    "realtime",
    "leaderboards",
    "arenas",
    "frontend",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    # Static files with hashed names, compressed, cached for a year, before any other work is done.
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "csp.middleware.CSPMiddleware",
    # Request id, player and timing on every log line of the request (accordion_site/logs.py).
    "accordion_site.logs.RequestLogMiddleware",
    # A control character (NUL…) in the path, query string or a header is a 400 (accordion_site/control_characters.py).
    "accordion_site.control_characters.ControlCharactersRefused",
    # /healthz for load balancers, ahead of the host check (accordion_site/views.py); it is exempt from
    # the HTTPS redirect too (SECURE_REDIRECT_EXEMPT).
    "accordion_site.views.HealthCheckFirst",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    # A page's 405 (require_POST…) is the site's own page, in the visitor's language (accordion_site/views.py).
    "accordion_site.views.MethodNotAllowedPage",
]

ROOT_URLCONF = "accordion_site.urls"
ASGI_APPLICATION = "accordion_site.asgi.application"
WSGI_APPLICATION = None

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.template.context_processors.i18n",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

# A server process's garbage collection (realtime/collection.py): the collector's three generation
# thresholds, as gc.set_threshold takes them (CPython's own are 700, 10, 10; a first one of 0 turns
# automatic collection off).
_gc_thresholds = env_list("GC_THRESHOLDS", ["50000", "20", "100"])
if len(_gc_thresholds) != 3 or not all(number.isdigit() for number in _gc_thresholds):
    raise ImproperlyConfigured(f"GC_THRESHOLDS takes three whole numbers, not {','.join(_gc_thresholds)!r}")
GC_THRESHOLDS = tuple(int(number) for number in _gc_thresholds)

DATABASES = {"default": dj_database_url.parse(env.str("DATABASE_URL", default=f"sqlite:///{BASE_DIR / 'db.sqlite3'}"))}
# Socket consumers run their database work on this many threads per process (accordion_site/db.py),
# concurrently, instead of on Channels' one shared thread.
DATABASE_THREADS = env.int("DATABASE_THREADS", default=8)
# A plain socket move is one statement sent from the event loop itself, on at most this many connections
# per process kept for it (realtime/loop_db.py, PostgreSQL only); when all are busy, the database
# threads take the move.
DATABASE_LOOP_CONNECTIONS = env.int("DATABASE_LOOP_CONNECTIONS", default=16)
if DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql":
    # Django's backend, whose pool checks each connection as it hands it out, so that one the server
    # ended (a PostgreSQL restart, a failover) is replaced instead of failing a request.
    DATABASES["default"]["ENGINE"] = "accordion_site.postgresql"
    # psycopg's pool: each database call borrows a connection and gives it back. Its size bounds a
    # process's connections: the database threads, the request thread, and some slack.
    DATABASES["default"]["OPTIONS"] = {
        "pool": {
            "min_size": 2,
            "max_size": env.int("DATABASE_POOL_SIZE", default=DATABASE_THREADS + 4),
            # How long a caller waits for a free connection. While the database is away every caller
            # waits this long before its 503 or `unavailable`, so it stays under Daphne's handshake
            # timeout: a socket opened meanwhile is told to try again rather than cut off unanswered.
            "timeout": env.float("DATABASE_POOL_TIMEOUT", default=3),
        },
        # The move's statements (games/store.py) are prepared on each connection from their first use;
        # the rest of the site binds values client-side and prepares nothing. Off
        # (DATABASE_PREPARED_STATEMENTS=false) for a pooler that cannot keep them, such as PgBouncer
        # before 1.21 in transaction mode.
        "prepare_threshold": 0 if env.bool("DATABASE_PREPARED_STATEMENTS", default=True) else None,
    }
    # A server-side cursor lives across the statements of a transaction only; a pooler in transaction mode
    # (PgBouncer) may give the next statement another server. Off (false) behind such a pooler.
    DATABASES["default"]["DISABLE_SERVER_SIDE_CURSORS"] = not env.bool("DATABASE_SERVER_SIDE_CURSORS", default=True)
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # The embedded default serves sockets from several database threads at once. SQLite's deferred
    # transactions fail a writer at once ("database is locked") when two connections that both read
    # try to write; taking the write lock at BEGIN makes the second wait its turn instead, and WAL
    # lets reads go on meanwhile (docs/architecture.md, "Choices and why").
    DATABASES["default"]["OPTIONS"] = {"transaction_mode": "IMMEDIATE", "init_command": "PRAGMA journal_mode=WAL;"}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

REDIS_URL = env.str("REDIS_URL", default="")
# The prefix of every Redis name of this deployment (channel layer, presence, cache), which keeps
# deployments (and test and bench servers) sharing one Redis from hearing or reading each other.
REDIS_PREFIX = env.str("CHANNELS_PREFIX", default="accordion")
# The channel layer's Redis servers: several (CHANNEL_LAYER_REDIS_URLS) share its channels and groups by a
# hash of the name; the cache and presence stay on REDIS_URL (docs/deploy.md, "Redis shards").
CHANNEL_LAYER_HOSTS = [
    {"address": url} for url in env_list("CHANNEL_LAYER_REDIS_URLS", [REDIS_URL] if REDIS_URL else [])
]
if REDIS_URL:
    # The pub/sub layer names the shards, groups and serialization; the bus publishes and subscribes on
    # connections of its own to them (realtime/shards.py, docs/architecture.md, "Choices and why").
    CHANNEL_LAYERS = {
        "default": {
            "BACKEND": "channels_redis.pubsub.RedisPubSubChannelLayer",
            "CONFIG": {"hosts": CHANNEL_LAYER_HOSTS, "prefix": REDIS_PREFIX},
        }
    }
else:
    CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}

# The cache holds rate-limit counters, so every process must share it in production. One Redis client per
# process (accordion_site/cache.py): Django's own makes one per request and per socket under ASGI.
if REDIS_URL:
    CACHES = {
        "default": {
            "BACKEND": "accordion_site.cache.ProcessRedisCache",
            "LOCATION": REDIS_URL,
            "KEY_PREFIX": REDIS_PREFIX,
        }
    }
else:
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}

# Solver work (hints, "still winnable?", after-game analysis) runs in a process pool of this many
# workers; at most SOLVER_MAX_JOBS jobs are in flight per web process, and past that callers are told
# to try again rather than queue. Each player may ask SOLVER_REQUESTS_PER_MINUTE times a minute (the
# "solver" throttle of games/throttles.py reads it on every request).
SOLVER_WORKERS = env.int("SOLVER_WORKERS", default=1)
# How much lower than the web process the solver workers' CPU priority is (os.nice): their searches
# take the CPU the sockets, PostgreSQL and Redis leave.
SOLVER_NICENESS = env.int("SOLVER_NICENESS", default=10)
SOLVER_MAX_JOBS = env.int("SOLVER_MAX_JOBS", default=4)
SOLVER_TIME_LIMIT = env.float("SOLVER_TIME_LIMIT", default=1.0)
SOLVER_REQUESTS_PER_MINUTE = env.int("SOLVER_REQUESTS_PER_MINUTE", default=30)
# …and from one client address, whichever players ask: fresh guests cannot keep the pool full for others.
SOLVER_REQUESTS_PER_MINUTE_PER_ADDRESS = env.int("SOLVER_REQUESTS_PER_MINUTE_PER_ADDRESS", default=60)
# Watchers' still-winnable badge (games/watching/badge.py): a solver job per new position of a watched
# game. Off spares the solver pool and a database read per move of watched games.
WATCH_BADGE = env.bool("WATCH_BADGE", default=True)
# New race rooms a player (or a visitor's address) may open a minute (games/races/api.py).
RACE_ROOMS_PER_MINUTE = env.int("RACE_ROOMS_PER_MINUTE", default=20)
# Arenas (arenas/): new arenas a player may create an hour; the UTC hour of the site's daily arena
# (manage.py schedule_arenas); whether an arena's next deal is certified in the background as soon as
# someone reaches the one before it (off only in tests, which certify in the request).
ARENAS_PER_HOUR = env.int("ARENAS_PER_HOUR", default=10)
ARENA_DAILY_HOUR = env.int("ARENA_DAILY_HOUR", default=18)
ARENA_DEALS_AHEAD = env.bool("ARENA_DEALS_AHEAD", default=True)

# Fair play (docs/fair-play.md). The daily deal comes from the date and DAILY_SECRET, so
# nobody can compute a coming day's deal; production must set it (32 characters or more), and in
# development it is derived from SECRET_KEY so that `make run` needs no environment.
DAILY_SECRET = env.str("DAILY_SECRET", default="")
if not DAILY_SECRET and DEVELOPMENT:
    DAILY_SECRET = hashlib.sha256(f"daily-secret:{SECRET_KEY}".encode()).hexdigest()
if len(DAILY_SECRET) < 32 or DAILY_SECRET.startswith(_PLACEHOLDER):
    raise ImproperlyConfigured("Set DAILY_SECRET to at least 32 random characters (production must set it).")
# Ranked daily attempts a day from one client address by guests and new accounts (games.RankedSlot, kept
# when accounts are deleted); past them such a daily game is practice.
RANKED_ATTEMPTS_PER_ADDRESS = env.int("RANKED_ATTEMPTS_PER_ADDRESS", default=3)
# An account this old keeps its one ranked daily attempt whatever its address. 24 hours: an account made
# after a day's deal is out is never old enough during that day, so fresh accounts cannot farm it.
ACCOUNT_OWN_SLOT_AFTER_HOURS = env.int("ACCOUNT_OWN_SLOT_AFTER_HOURS", default=24)
# Every finished ranked result gets a risk score, 0-100, with its reasons (docs/fair-play.md, "Assessing
# play"); at FAIR_PLAY_REVIEW_RISK or above it waits off the board for a staff review. The solver's part
# runs in the pool after the finish, FAIR_PLAY_SOLVER_SECONDS in all and FAIR_PLAY_SOLVER_POSITIONS
# positions a question (FAIR_PLAY_ASSESS_IN_BACKGROUND off leaves it all to `manage.py assess_games`).
FAIR_PLAY_REVIEW_RISK = env.int("FAIR_PLAY_REVIEW_RISK", default=50)
FAIR_PLAY_SOLVER_SECONDS = env.float("FAIR_PLAY_SOLVER_SECONDS", default=8)
FAIR_PLAY_SOLVER_POSITIONS = env.int("FAIR_PLAY_SOLVER_POSITIONS", default=500)
FAIR_PLAY_ASSESS_IN_BACKGROUND = env.bool("FAIR_PLAY_ASSESS_IN_BACKGROUND", default=True)
# Timing signals: a win under FAIR_PLAY_MIN_WIN_SECONDS, a median think under FAIR_PLAY_MIN_MEDIAN_MOVE_MS
# (judged over at least FAIR_PLAY_MIN_TIMED_MOVES moves), a finish over REST bringing more than
# FAIR_PLAY_MAX_UNSEEN_MOVES moves that never arrived one by one.
FAIR_PLAY_MIN_WIN_SECONDS = env.int("FAIR_PLAY_MIN_WIN_SECONDS", default=30)
FAIR_PLAY_MIN_MEDIAN_MOVE_MS = env.int("FAIR_PLAY_MIN_MEDIAN_MOVE_MS", default=150)
FAIR_PLAY_MIN_TIMED_MOVES = env.int("FAIR_PLAY_MIN_TIMED_MOVES", default=15)
FAIR_PLAY_MAX_UNSEEN_MOVES = env.int("FAIR_PLAY_MAX_UNSEEN_MOVES", default=3)
# A day's first FAIR_PLAY_PROVISIONAL_PLACES places are provisional until staff review them or
# FAIR_PLAY_FINAL_AFTER_HOURS pass after the finish without a hold.
FAIR_PLAY_PROVISIONAL_PLACES = env.int("FAIR_PLAY_PROVISIONAL_PLACES", default=10)
FAIR_PLAY_FINAL_AFTER_HOURS = env.int("FAIR_PLAY_FINAL_AFTER_HOURS", default=24)

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "accounts.password_rules.MinimumLengthValidator"},  # worded by the site: see its module
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
# Password hashes (slow on purpose) run on this many threads per process, with no database
# connection held, this much lower in CPU priority than the sockets (accounts/passwords.py).
PASSWORD_HASH_THREADS = env.int("PASSWORD_HASH_THREADS", default=1)
PASSWORD_HASH_NICENESS = env.int("PASSWORD_HASH_NICENESS", default=10)

LANGUAGE_CODE = "en"
LANGUAGES = [("en", "English"), ("fa", "فارسی")]
LOCALE_PATHS = [BASE_DIR / "locale"]
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = Path(env.str("STATIC_ROOT", default=str(BASE_DIR / "staticfiles")))
# Production serves `collectstatic`'s output with hashed names (cached for a year by browsers and the
# proxy); development serves the source files as they are.
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"
        if DEVELOPMENT
        else "accordion_site.storage.ModuleStaticFilesStorage"
    },
}
# In development WhiteNoise serves the static files from their sources, as they are now.
WHITENOISE_USE_FINDERS = DEVELOPMENT
WHITENOISE_AUTOREFRESH = DEVELOPMENT

# Scripts and styles only from this site's own files (no inline script, no eval); sockets to this host.
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": ["'self'"],
        "script-src": ["'self'"],
        "style-src": ["'self'"],
        "img-src": ["'self'", "data:"],
        "connect-src": ["'self'"],
        "object-src": ["'none'"],
        "base-uri": ["'self'"],
        "form-action": ["'self'"],
        "frame-ancestors": ["'none'"],
    }
}
X_FRAME_OPTIONS = "DENY"
SECURE_REFERRER_POLICY = "same-origin"
# A load balancer polls each process's /healthz over plain HTTP: answered, not redirected to HTTPS.
SECURE_REDIRECT_EXEMPT = [r"^healthz$"]
SECURE_CONTENT_TYPE_NOSNIFF = True

# Django's database sessions; a malformed session cookie (a NUL in it…) is a fresh session (accordion_site/sessions.py).
SESSION_ENGINE = "accordion_site.sessions"
SESSION_COOKIE_AGE = 60 * 60 * 24 * 365  # guests keep their games for a year
SESSION_COOKIE_HTTPONLY = True
SESSION_COOKIE_SAMESITE = "Lax"

if not DEVELOPMENT:
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    SECURE_SSL_REDIRECT = env.bool("SECURE_SSL_REDIRECT", default=True)
    SESSION_COOKIE_SECURE = True
    CSRF_COOKIE_SECURE = True
    SECURE_HSTS_SECONDS = env.int("SECURE_HSTS_SECONDS", default=60 * 60 * 24 * 30)
    SECURE_HSTS_INCLUDE_SUBDOMAINS = True
    SECURE_HSTS_PRELOAD = True

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": ["accounts.authentication.GuestSessionAuthentication"],
    "DEFAULT_PERMISSION_CLASSES": [],
    "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer"],
    "DEFAULT_PARSER_CLASSES": ["accordion_site.parsers.JSONParser"],
    # drf-spectacular's schema, plus the 429 of every throttled operation (accordion_site/schema.py).
    "DEFAULT_SCHEMA_CLASS": "accordion_site.schema.AutoSchema",
    "EXCEPTION_HANDLER": "accordion_site.api_errors.exception_handler",
    # Throttles key visitors by client address: the number of proxies in front of Daphne that append to
    # X-Forwarded-For (0 = trust only the connection's address, which a client cannot forge).
    "NUM_PROXIES": env.int("NUM_PROXIES", default=0),
    "DEFAULT_THROTTLE_CLASSES": [
        "accordion_site.throttles.VisitorRateThrottle",
        "accordion_site.throttles.PlayerRateThrottle",
    ],
    "DEFAULT_THROTTLE_RATES": {
        # Sign-up, login and password attempts (accounts/throttles.py): per client address, and per
        # pair (address, account), so guessing one account's password from an address stays slow while
        # its owner, elsewhere, is never locked out; and new accounts per address.
        "accounts_address": env.str("ACCOUNTS_ADDRESS_RATE", default="20/minute"),
        "accounts_pair": env.str("ACCOUNTS_PAIR_RATE", default="10/hour"),
        "accounts_signup": env.str("ACCOUNTS_SIGNUP_RATE", default="20/hour"),
    },
    "UNAUTHENTICATED_USER": None,
}

SPECTACULAR_SETTINGS = {
    "TITLE": "Accordion Live API",
    "DESCRIPTION": "Games, server-verified results and leaderboards. Sockets are described in docs/api.md.",
    "VERSION": "1.0.0",
    # 3.1: a nullable field is JSON Schema ("type": ["integer", "null"]), so responses validate against it.
    "OAS_VERSION": "3.1.0",
    # The mode a client may start is a subset of the modes a game can have (races start in their room).
    # Choice sets that share a field name (kind, state, status) get names of their own.
    "ENUM_NAME_OVERRIDES": {
        "GameModeEnum": "games.models.Game.Mode",
        "GameStatusEnum": "games.models.Game.Status",
        "GameEventKindEnum": "games.models.GameEvent.Kind",
        "RoomStateEnum": "games.races.models.Room.State",
        "ArenaKindEnum": "arenas.models.Arena.Kind",
        "ArenaStateEnum": "arenas.models.Arena.State",
    },
    "SERVE_INCLUDE_SCHEMA": False,
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
}

# The largest request body the API reads; a finish carries at most 51 moves. Under Daphne a larger
# declared or streamed body is refused before it is read (realtime/daphne_limits.py).
DATA_UPLOAD_MAX_MEMORY_SIZE = 64 * 1024
# Every API request counts against one of two DRF rates (accordion_site/throttles.py), far above what a
# person does, to stop scripts: per client address for visitors who have not played, per player for
# players. A visitor's first start or race, which makes their guest, is counted only by the visitor rate:
# 600 a minute is ten new players a second from one address, which no school or carrier's crowd reaches,
# while a script that drops its cookies to mint guests is held to it.
# Finishes and game starts are counted apart, per player.
API_VISITOR_RATE = env.str("API_VISITOR_RATE", default="600/minute")
API_PLAYER_RATE = env.str("API_PLAYER_RATE", default="600/minute")
FINISH_RATE = env.str("FINISH_RATE", default="30/minute")
GAME_START_RATE = env.str("GAME_START_RATE", default="30/minute")
# Sockets one player (or one visitor's session) may hold open at once, per web process; visitors with
# no session at all (a watcher who has not played) are counted by address, which a whole school or a
# carrier's customers may share: 1,000 a process is a flood ceiling no crowd of watchers meets.
SOCKETS_PER_PLAYER = env.int("SOCKETS_PER_PLAYER", default=12)
SOCKETS_PER_ADDRESS = env.int("SOCKETS_PER_ADDRESS", default=1000)
# /healthz gives up on the database or Redis after this many seconds and reports it down.
HEALTH_CHECK_TIMEOUT_S = env.float("HEALTH_CHECK_TIMEOUT_S", default=2)

# LOG_FORMAT=json writes one JSON object a line with the request id, player and game of the request or
# socket (accordion_site/logs.py), for a log collector; plain text is for people.
LOG_FORMAT = env.str("LOG_FORMAT", default="plain" if DEVELOPMENT else "json").strip().lower()
if LOG_FORMAT not in ("json", "plain"):
    raise ImproperlyConfigured(f"LOG_FORMAT is json or plain, not {LOG_FORMAT!r}.")
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "filters": {"context": {"()": "accordion_site.logs.ContextFilter"}},
    "formatters": {
        "plain": {"format": "%(asctime)s %(levelname)s %(name)s %(message)s"},
        "json": {"()": "accordion_site.logs.JsonFormatter"},
    },
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": LOG_FORMAT, "filters": ["context"]}},
    "root": {"handlers": ["console"], "level": env.str("LOG_LEVEL", default="INFO")},
    "loggers": {
        "django.channels.server": {"level": "WARNING"},
        # A JSON line per request (accordion_site/logs.py) for a log collector; in plain text the
        # development server prints its own line per request already.
        "accordion_site.access": {"level": "INFO" if LOG_FORMAT == "json" else "WARNING"},
    },
}
