"""Watching games live: the watch socket, the live list, watcher counts and the still-winnable badge."""
