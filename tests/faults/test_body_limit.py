"""A body over the limit is refused by a real Daphne while it arrives (realtime/daphne_limits.py):
the 413 comes before the body is sent, and the body is never read into the process's memory."""

from __future__ import annotations

import json
import select
import socket
from pathlib import Path

import pytest

from bench.cluster import PreparedSite
from tests.faults.conftest import production_cluster

pytestmark = pytest.mark.services

HEADERS = b"POST /api/games HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"


def refusal(answer: bytes) -> tuple[str, dict[str, str], dict[str, str]]:
    head, _, body = answer.partition(b"\r\n\r\n")
    status, *lines = head.decode().split("\r\n")
    headers = dict(line.split(": ", 1) for line in lines)
    return status, headers, json.loads(body)


def answer_to(port: int, request: bytes, *chunks: bytes) -> bytes:
    """Send `request`, then `chunks` one by one until the server answers; return the whole answer. The
    answer is read as soon as it comes: sending on after it would meet a connection the server closed."""
    with socket.create_connection(("127.0.0.1", port), timeout=10) as connection:
        connection.sendall(request)
        for chunk in chunks:
            if select.select([connection], [], [], 0.2)[0]:
                break
            connection.sendall(chunk)
        received = b""
        while data := connection.recv(65536):
            received += data
        return received


def test_a_body_declared_too_large_is_refused_before_it_is_sent(
    tmp_path: Path, redis_url: str, production_site: PreparedSite
):
    with production_cluster(tmp_path, site=production_site, redis_url=redis_url, daphnes=1) as (daphne,):
        answer = answer_to(daphne.port, HEADERS + b"Content-Length: 300000000\r\n\r\n")  # and no body at all
        status, headers, body = refusal(answer)
        assert status == "HTTP/1.1 413 Payload Too Large" and body["code"] == "too_large"
        assert (
            headers["X-Content-Type-Options"] == "nosniff"
            and "default-src 'none'" in headers["Content-Security-Policy"]
        )


def test_a_streamed_body_is_cut_off_once_it_passes_the_limit(
    tmp_path: Path, redis_url: str, production_site: PreparedSite
):
    chunk = b"x" * 65536
    with production_cluster(tmp_path, site=production_site, redis_url=redis_url, daphnes=1) as (daphne,):
        framed = b"%x\r\n%s\r\n" % (len(chunk), chunk)
        answer = answer_to(daphne.port, HEADERS + b"Transfer-Encoding: chunked\r\n\r\n", *[framed] * 5)
        assert refusal(answer)[0] == "HTTP/1.1 413 Payload Too Large"
