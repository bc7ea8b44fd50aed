"""Watching games live: the watch socket, the live list, watcher counts and the still-winnable badge.

Watchers follow a game on the process's bus (realtime/bus.py) like the player's sockets do, but
through one `Audience` per game per process, which coalesces the events of a short tick into one
frame and writes the same bytes to each watcher. See docs/architecture.md, "Watching".
"""
