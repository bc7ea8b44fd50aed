"""Describes the guest session cookie to drf-spectacular (imported when the app is ready)."""

from drf_spectacular.authentication import SessionScheme


class GuestSessionScheme(SessionScheme):
    target_class = "accounts.authentication.GuestSessionAuthentication"
    name = "guestSession"
