"""A socket's handshake headers as the socket edges read them (accordion_site/handshake.py)."""

from __future__ import annotations

from accordion_site.handshake import handshake_header

SCOPE = {"headers": [(b"host", b"127.0.0.1:8000"), (b"cookie", b"a=1"), (b"cookie", b"b=\xe9")]}


def test_a_header_is_read_by_its_lower_case_name_and_the_last_one_counts() -> None:
    assert handshake_header(SCOPE, b"host") == "127.0.0.1:8000"
    assert handshake_header(SCOPE, b"cookie") == "b=\u00e9"  # bytes as Latin-1, as HTTP/1.1 sends them


def test_a_missing_header_or_header_list_is_none() -> None:
    assert handshake_header(SCOPE, b"origin") is None
    assert handshake_header({}, b"origin") is None
