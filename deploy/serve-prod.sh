#!/usr/bin/env bash
# `make serve-prod`: the production setup on this machine. N Daphne processes (PROCESSES, default 2) on
# loopback ports PORT, PORT+1, … with DEBUG off, against the PostgreSQL and Redis that DATABASE_URL and
# REDIS_URL name. Ctrl-C stops them all. Put deploy/nginx.conf in front to serve them on one address,
# with PROXY_HEADERS=1 so that the client's address comes from it.
set -euo pipefail
cd "$(dirname "$0")/.."
: "${DATABASE_URL:?set DATABASE_URL, e.g. postgres://postgres@127.0.0.1:5432/accordion}"
: "${REDIS_URL:?set REDIS_URL, e.g. redis://127.0.0.1:6379/0}"
PROCESSES="${PROCESSES:-2}"
PORT="${PORT:-8001}"

# Secrets made once and kept (a new DAILY_SECRET would change the days not yet certified).
SECRETS="${SERVE_PROD_SECRETS:-.serve-prod.env}"
if [ ! -f "$SECRETS" ]; then
  (umask 077 && .venv/bin/python -c 'import secrets
print(f"SECRET_KEY={secrets.token_urlsafe(60)}")
print(f"DAILY_SECRET={secrets.token_hex(32)}")' > "$SECRETS")
fi
set -a
. "$(realpath "$SECRETS")"
set +a
export DEBUG=0 DEVELOPMENT=0
export ALLOWED_HOSTS="${ALLOWED_HOSTS:-127.0.0.1,localhost}"
export SECURE_SSL_REDIRECT="${SECURE_SSL_REDIRECT:-0}"  # on loopback no proxy terminates TLS
export LOG_FORMAT="${LOG_FORMAT:-json}"
# Only with a proxy in front (PROXY_HEADERS=1, e.g. deploy/nginx.conf) may X-Forwarded-For name the
# client: without one, any client could write its own address there and step past every per-address limit.
proxy_headers=()
if [ "${PROXY_HEADERS:-0}" = 1 ]; then
  proxy_headers=(--proxy-headers)
  export NUM_PROXIES="${NUM_PROXIES:-1}"
fi

.venv/bin/python manage.py migrate --noinput
.venv/bin/python manage.py compilemessages --ignore=.venv --ignore=node_modules --verbosity 0  # Persian pages
.venv/bin/python manage.py collectstatic --noinput --verbosity 0
.venv/bin/python manage.py certify_daily_deals
.venv/bin/python manage.py schedule_arenas  # the site's arenas of the next 24 hours, listed before they start

# Each Daphne leads a process group of its own, and the whole group is stopped: its solver's worker
# processes with it, even when the Daphne itself has died (as the unit's KillMode=control-group does).
pids=()
trap 'for pid in "${pids[@]}"; do kill -- -"$pid" 2>/dev/null; done; wait' EXIT INT TERM
for index in $(seq 0 $((PROCESSES - 1))); do
  setsid .venv/bin/daphne -b 127.0.0.1 -p $((PORT + index)) "${proxy_headers[@]}" \
    --websocket_timeout 86400 --websocket_connect_timeout 10 --ping-interval 20 --ping-timeout 30 \
    --http-timeout 30 --websocket-max-message-size 65536 --application-close-timeout 5 --access-log /dev/null \
    accordion_site.asgi:application &
  pids+=($!)
  echo "Daphne $((index + 1)) of $PROCESSES: http://127.0.0.1:$((PORT + index))/ (pid $!)"
done
wait -n
