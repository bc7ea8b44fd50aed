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
