"""Settings for Accordion Live, read from the environment with safe development defaults.

Production sets DEBUG=0 and gives DATABASE_URL, REDIS_URL, SECRET_KEY and ALLOWED_HOSTS; the embedded
default (no environment at all) is SQLite and the in-memory channel layer in one process.
"""

from __future__ import annotations

import os
from pathlib import Path

import dj_database_url
from django.core.exceptions import ImproperlyConfigured

BASE_DIR = Path(__file__).resolve().parent.parent


def env_bool(name: str, default: bool) -> bool:
    value = os.environ.get(name)
    if value is None:
        return default
    return value.strip().lower() in {"1", "true", "yes", "on"}


def env_list(name: str, default: list[str]) -> list[str]:
    value = os.environ.get(name)
    if value is None:
        return default
    return [item.strip() for item in value.split(",") if item.strip()]


DEBUG = env_bool("DEBUG", True)

_DEVELOPMENT_SECRET_KEY = "development-only-secret-key-never-use-in-production"
SECRET_KEY = os.environ.get("SECRET_KEY", _DEVELOPMENT_SECRET_KEY if DEBUG else "")
if not DEBUG and (not SECRET_KEY or SECRET_KEY == _DEVELOPMENT_SECRET_KEY or len(SECRET_KEY) < 50):
    raise ImproperlyConfigured("Set SECRET_KEY (at least 50 random characters) when DEBUG is off.")

ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", ["127.0.0.1", "localhost", "[::1]"] if DEBUG else [])
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
    "rest_framework",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "accounts",
    "games",
    "leaderboards",
    "frontend",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
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

DATABASES = {"default": dj_database_url.parse(os.environ.get("DATABASE_URL", f"sqlite:///{BASE_DIR / 'db.sqlite3'}"))}
# Socket consumers run their database work on this many threads per process (accordion_site/db.py),
# concurrently, instead of on Channels' one shared thread.
DATABASE_THREADS = int(os.environ.get("DATABASE_THREADS", "8"))
if DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql":
    # psycopg's pool: each database call borrows a connection and gives it back. Its size bounds a
    # process's connections: the database threads, the request thread, and some slack.
    DATABASES["default"]["OPTIONS"] = {
        "pool": {
            "min_size": 2,
            "max_size": int(os.environ.get("DATABASE_POOL_SIZE", str(DATABASE_THREADS + 4))),
            "timeout": 10,
        }
    }
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

REDIS_URL = os.environ.get("REDIS_URL", "")
if REDIS_URL:
    # The pub/sub layer is cheaper per delivery and not hit by redis-py 8's socket_timeout race
    # (channels_redis issue #422, see DESIGN.md's pitfalls).
    CHANNEL_LAYERS = {
        "default": {
            "BACKEND": "channels_redis.pubsub.RedisPubSubChannelLayer",
            # The prefix keeps deployments (and test servers) sharing one Redis from hearing each other.
            "CONFIG": {"hosts": [{"address": REDIS_URL}], "prefix": os.environ.get("CHANNELS_PREFIX", "accordion")},
        }
    }
else:
    CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}

# The cache holds rate-limit counters, so every process must share it in production.
if REDIS_URL:
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": REDIS_URL}}
else:
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}

# Solver work (hints, "still winnable?", after-game analysis) runs in a process pool of this many
# workers; at most SOLVER_MAX_JOBS jobs are in flight per web process, and past that callers are told
# to try again rather than queue. Each player may ask SOLVER_REQUESTS_PER_MINUTE times a minute (the
# "solver" throttle of games/throttles.py reads it on every request).
SOLVER_WORKERS = int(os.environ.get("SOLVER_WORKERS", "1"))
SOLVER_MAX_JOBS = int(os.environ.get("SOLVER_MAX_JOBS", "4"))
SOLVER_TIME_LIMIT = float(os.environ.get("SOLVER_TIME_LIMIT", "1.0"))
SOLVER_REQUESTS_PER_MINUTE = int(os.environ.get("SOLVER_REQUESTS_PER_MINUTE", "30"))

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

LANGUAGE_CODE = "en"
LANGUAGES = [("en", "English"), ("fa", "فارسی")]
LOCALE_PATHS = [BASE_DIR / "locale"]
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = BASE_DIR / "staticfiles"

SESSION_COOKIE_AGE = 60 * 60 * 24 * 365  # guests keep their games for a year
SESSION_COOKIE_HTTPONLY = True
SESSION_COOKIE_SAMESITE = "Lax"

if not DEBUG:
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", True)
    SESSION_COOKIE_SECURE = True
    CSRF_COOKIE_SECURE = True
    SECURE_HSTS_SECONDS = int(os.environ.get("SECURE_HSTS_SECONDS", str(60 * 60 * 24 * 30)))
    SECURE_HSTS_INCLUDE_SUBDOMAINS = True
    SECURE_HSTS_PRELOAD = True

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": ["accounts.authentication.GuestSessionAuthentication"],
    "DEFAULT_PERMISSION_CLASSES": [],
    "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer"],
    "DEFAULT_PARSER_CLASSES": ["rest_framework.parsers.JSONParser"],
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "EXCEPTION_HANDLER": "accordion_site.api_errors.exception_handler",
    # Throttles key visitors by client address: the number of proxies in front of Daphne that append to
    # X-Forwarded-For (0 = trust only the connection's address, which a client cannot forge).
    "NUM_PROXIES": int(os.environ.get("NUM_PROXIES", "0")),
    "DEFAULT_THROTTLE_RATES": {
        # Sign-up, login and password attempts (accounts/throttles.py): per client address, and per
        # nickname from any address, so guessing one account's password stays slow.
        "accounts_address": os.environ.get("ACCOUNTS_ADDRESS_RATE", "20/minute"),
        "accounts_nickname": os.environ.get("ACCOUNTS_NICKNAME_RATE", "30/hour"),
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
    "ENUM_NAME_OVERRIDES": {"GameModeEnum": "games.models.Game.Mode"},
    "SERVE_INCLUDE_SCHEMA": False,
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
}

# The largest request body the API reads; a finish carries at most 51 moves.
DATA_UPLOAD_MAX_MEMORY_SIZE = 64 * 1024

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"plain": {"format": "%(asctime)s %(levelname)s %(name)s %(message)s"}},
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "plain"}},
    "root": {"handlers": ["console"], "level": os.environ.get("LOG_LEVEL", "INFO")},
    "loggers": {"django.channels.server": {"level": "WARNING"}},
}
