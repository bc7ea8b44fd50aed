"""Django's database sessions, with a stricter key check: a session cookie that is not one of the keys
Django makes (letters and digits) is no session at all, and the visitor gets a fresh one, as for a
cookie that names a session that ended. Without it, a cookie holding a NUL (`sessionid="abcdefgh\\000ijkl"`,
which the cookie parser unquotes into a NUL) reached PostgreSQL, which refuses a NUL in text: every
page, API call and socket handshake of that browser answered 500.
"""

from __future__ import annotations

from django.contrib.sessions.backends.db import SessionStore as DatabaseSessionStore

# Django makes 32 characters of [a-z0-9]; its own check only asks for 8 or more of anything.
SESSION_KEY_LENGTHS = range(8, 41)


class SessionStore(DatabaseSessionStore):
    def _validate_session_key(self, key: str | None) -> bool:
        return key is not None and len(key) in SESSION_KEY_LENGTHS and key.isascii() and key.isalnum()
