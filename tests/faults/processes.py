"""The pieces a fault test breaks on purpose: a private Redis server it can restart, and a TCP relay in
front of PostgreSQL it can cut. The shared Redis and PostgreSQL other tests use are never touched."""

from __future__ import annotations

import asyncio
import contextlib
import subprocess
import threading
import time
from collections.abc import Sequence
from pathlib import Path

import redis

from bench.cluster import free_port

START_TIMEOUT_S = 10
RELAY_CHUNK = 64 * 1024


class RedisServer:
    """A `redis-server` of this test's own on a free loopback port, with nothing kept on disk; also
    listening on the `also_on` addresses (other network namespaces reach it there)."""

    def __init__(self, executable: str, workdir: Path, *, also_on: Sequence[str] = ()) -> None:
        self.executable = executable
        self.workdir = workdir
        self.port = free_port()
        self.addresses = ["127.0.0.1", *also_on]
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        log = (self.workdir / f"redis-{self.port}.log").open("ab")
        self.process = subprocess.Popen(
            [self.executable, "--port", str(self.port), "--bind", *self.addresses, "--save", "", "--appendonly", "no"]
            # It listens on the addresses given and no others: clients from there are expected.
            + ["--protected-mode", "no"],
            cwd=self.workdir,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        deadline = time.monotonic() + START_TIMEOUT_S
        while True:
            try:
                redis.Redis.from_url(self.url, socket_timeout=0.5).ping()
                return
            except redis.RedisError:
                if self.process.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(f"redis-server did not start on port {self.port}") from None
                time.sleep(0.05)

    def stop(self) -> None:
        if self.process is None:
            return
        self.process.terminate()
        try:
            self.process.wait(timeout=START_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self.process = None

    def restart(self) -> None:
        """Stop the server (every client loses its connection and everything in it) and start afresh."""
        self.stop()
        self.start()


class TcpRelay:
    """Relays loopback connections on `port` to `target`, on a thread of its own. `cut()` drops every
    connection at once and hangs up on new ones, as a database host that went away would look to its
    clients; `restore()` lets them through again."""

    def __init__(self, target_host: str, target_port: int) -> None:
        self.target = (target_host, target_port)
        self.port = free_port()
        self.passing = True
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, name="tcp-relay", daemon=True)
        self.transports: set[asyncio.BaseTransport] = set()
        self.server: asyncio.Server | None = None

    def start(self) -> None:
        self.thread.start()
        self._run(self._listen())

    def cut(self) -> None:
        self._run(self._cut())

    def restore(self) -> None:
        self._run(self._restore())

    def stop(self) -> None:
        self._run(self._close())
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(timeout=START_TIMEOUT_S)

    def _run(self, coroutine: object) -> None:
        asyncio.run_coroutine_threadsafe(coroutine, self.loop).result(timeout=START_TIMEOUT_S)  # type: ignore[arg-type]

    async def _listen(self) -> None:
        self.server = await asyncio.start_server(self._relay, "127.0.0.1", self.port)

    async def _cut(self) -> None:
        self.passing = False
        for transport in self.transports:
            transport.abort()
        self.transports.clear()

    async def _restore(self) -> None:
        self.passing = True

    async def _close(self) -> None:
        await self._cut()
        if self.server is not None:
            self.server.close()

    async def _relay(self, client_reader: asyncio.StreamReader, client_writer: asyncio.StreamWriter) -> None:
        if not self.passing:
            client_writer.transport.abort()
            return
        try:
            server_reader, server_writer = await asyncio.open_connection(*self.target)
        except OSError:
            client_writer.transport.abort()
            return
        pair = {client_writer.transport, server_writer.transport}
        self.transports |= pair
        await asyncio.gather(self._pipe(client_reader, server_writer), self._pipe(server_reader, client_writer))
        self.transports -= pair

    @staticmethod
    async def _pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        with contextlib.suppress(OSError, asyncio.IncompleteReadError):
            while chunk := await reader.read(RELAY_CHUNK):
                writer.write(chunk)
                await writer.drain()
        writer.transport.abort()
