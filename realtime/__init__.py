"""The real-time layer every live feature (games, races, watching) uses: the process's bus
(bus.py), the consumer base and its conventions (consumer.py), the wire's shared parts and declared
outgoing messages (protocol.py), presence (presence.py), the socket edges (edges.py), and the
platform adaptations, each there for one reason:

- loop_db.py: a plain socket move is one statement sent from the event loop itself, through libpq, because
  a hop to a database thread and back costs as much CPU as the rest of the move (bench/socket_floor.py)
  and psycopg's cursor half as much again as libpq (bench/loop_statement.py); the moves of one turn of
  the loop share one statement, because PostgreSQL's cost a statement and transaction exceeds its cost
  a row (bench/arena.py);
- shards.py: the bus publishes many group messages in one round trip and subscribes, on
  connections of its own, because one PUBLISH per round trip caps the events a busy process can
  publish, and redis-py's pool, retries and timers per command and message cost more than the sends
  and reads themselves (bench/publish.py, bench/load.py);
- daphne_limits.py: an oversized body is refused while it arrives and a closing client gets time to
  answer, because Daphne buffers whole bodies and cuts slow closes to 1006;
- frame_costs.py: autobahn's debug arguments (each frame's, each new socket's) and unmasking are made
  cheap, Twisted sends a frame at once when nothing waits before it, and a frame many sockets get is
  framed once, because those are a large part of a web process's CPU for frames of a few dozen bytes
  (bench/socket_floor.py, bench/watch.py);
- socket_memory.py: a socket's inbox under Daphne is a list and one waiter, because Daphne's
  `asyncio.Queue` keeps four preallocated deques (about 2.9 KiB) for as long as each socket is open;
- collection.py: start-up objects are frozen and the collector runs less often, because CPython's
  defaults pause every socket of a busy process while a full collection walks the start-up objects.
"""
