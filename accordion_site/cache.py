"""Django's Redis cache with one client, and so one connection pool, per process.

Django keeps a cache object per thread and, under ASGI, per async context: every HTTP request and
every socket builds a `RedisCache` of its own, and with it a connection pool and a fresh connection
to Redis that nothing closes (`RedisCache.close()` does nothing; the garbage collector does, late),
so every watch socket, which reads the game's badge from the cache when it connects, would hold a
Redis connection and its buffers. redis-py's client is thread-safe, so one per process and location
serves every thread and context.

django-redis shares its pools the same way, but swapping the backend for it would change the
cache's options and serialisation for what is this one property.
"""

from __future__ import annotations

import threading
from functools import cached_property
from typing import Any, ClassVar

from django.core.cache.backends.redis import RedisCache, RedisCacheClient
from redis.commands.core import Script

# A count in a fixed window, atomic in Redis: the count that starts the window (or finds its key
# without an expiry) sets the window's end; the answer is the count and the milliseconds left.
WINDOW_COUNT = """
local count = redis.call('INCR', KEYS[1])
local left = redis.call('PTTL', KEYS[1])
if left < 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
  left = tonumber(ARGV[1])
end
return {count, left}
"""


class ProcessRedisCache(RedisCache):
    """`RedisCache` whose instances share one `RedisCacheClient` per servers and options."""

    # Set by RedisCache.__init__ (django-stubs leaves its private attributes out).
    _servers: list[str]
    _options: dict[str, Any]
    _class: type[RedisCacheClient]

    _clients: ClassVar[dict[str, RedisCacheClient]] = {}
    _clients_lock: ClassVar[threading.Lock] = threading.Lock()

    @cached_property
    def _cache(self) -> RedisCacheClient:
        key = repr((self._servers, sorted(self._options.items())))
        with self._clients_lock:
            client = self._clients.get(key)
            if client is None:
                client = self._clients[key] = self._class(self._servers, **self._options)
        return client

    @cached_property
    def _window_count(self) -> Script:
        return self._cache.get_client(write=True).register_script(WINDOW_COUNT)

    def count_in_window(self, key: str, *, period: int) -> tuple[int, float]:
        """Add one to `key`'s count and return it with the seconds left in its window of `period`
        seconds, which the first count starts: one round trip (throttles.window_count on any cache)."""
        count, left_ms = self._window_count(keys=[self.make_and_validate_key(key)], args=[period * 1000])
        return int(count), int(left_ms) / 1000
