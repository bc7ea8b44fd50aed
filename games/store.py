"""The statements on the hot path of every move: lock a game row, read its deal, store the change with
its event.

A change locks the game, updates it and inserts its event (on PostgreSQL, the update and the insert in
one statement). A plain socket move on PostgreSQL needs neither the lock nor the read: the socket
knows the game, and `save_change_if_unchanged` stores the move only if the game is still as known, in
one statement that is its own transaction. Through the ORM's query API that
cost about 1.1 ms of CPU per move, of which some 0.45 ms was compiling the same three queries again
each time (measured with bench/load.py and a service loop on PostgreSQL). Here each statement is
compiled once per thread and then only executed; values still go through the model fields'
conversions, so the rows read and written are exactly what the ORM would read and write.

On PostgreSQL these statements are also prepared on each connection (`_cursor`): the server then parses
and plans each of them once per connection instead of once per move, and psycopg sends only the
values. The rest of the site keeps Django's client-side binding (docs/performance.md, "Prepared
statements for the move").
"""

from __future__ import annotations

import json
import threading
from collections.abc import Sequence
from typing import Any

from django.db import DEFAULT_DB_ALIAS, connections
from django.db.backends.postgresql.base import ServerBindingCursor  # type: ignore[attr-defined]  # not in django-stubs
from django.db.backends.utils import CursorWrapper
from django.db.models import JSONField

from realtime.loop_db import loop_connections

from .models import Deal, Game, GameEvent

_compiled = threading.local()


def lock_game(game_id: int) -> Game | None:
    """The game row, locked FOR UPDATE (the game row only: not its deal, or every player of the day's
    deal would wait for each other), with its deal; None if there is no such game. Call it inside a
    transaction."""
    db = connections[DEFAULT_DB_ALIAS]
    compiler, converters, sql, game_fields, deal_fields = _lock_statement(db)
    with _cursor(db) as cursor:
        cursor.execute(sql, [game_id])
        rows = cursor.fetchall()
    if not rows:
        return None
    row = next(iter(compiler.apply_converters(rows, converters))) if converters else rows[0]
    game = Game.from_db(db.alias, game_fields, row[: len(game_fields)])
    game.deal = Deal.from_db(db.alias, deal_fields, row[len(game_fields) :])
    return game


def save_change(game: Game, *, fields: Sequence[str], event: GameEvent) -> None:
    """Write the `fields` of `game` and insert `event` (its id is set).

    On PostgreSQL both go in one statement (the update as a data-modifying WITH), one round trip
    instead of two; SQLite has no such WITH, so there they are two."""
    db = connections[DEFAULT_DB_ALIAS]
    names = tuple(fields)
    update_sql, update_fields = _update_statement(db, names)
    params = [*_values(game, update_fields, db), game.pk]
    insert_sql, insert_fields = _insert_statement(db)
    event_params = _values(event, insert_fields, db)
    with _cursor(db) as cursor:
        if db.vendor == "postgresql":
            cursor.execute(_change_statement(db, names), [*params, *event_params])
        else:
            cursor.execute(update_sql, params)
            cursor.execute(insert_sql, event_params)
        event.pk = cursor.fetchone()[0]


def save_change_if_unchanged(game: Game, *, version: int, status: str, fields: Sequence[str], event: GameEvent) -> bool:
    """Write the `fields` of `game` and insert `event` (its id is set) only if the stored game is still at
    `version` with `status` and the same player; return whether it was written. One PostgreSQL
    statement: outside a transaction it commits (or changes nothing) by itself."""
    db = connections[DEFAULT_DB_ALIAS]
    sql, params = _conditional_change(db, game, version=version, status=status, fields=fields, event=event)
    with _cursor(db) as cursor:
        cursor.execute(sql, params)
        row = cursor.fetchone()
    if row is None:
        return False
    event.pk = row[0]
    return True


async def save_change_if_unchanged_from_loop(
    *, game_id: int, player_id: int, version: int, status: str, changes: dict[str, Any], event: dict[str, Any]
) -> int | None:
    """`save_change_if_unchanged` sent from the event loop, on one of its own connections
    (realtime/loop_db.py) instead of a database thread, with the values as plain data: `changes`
    are the game's new column values by field name (its new version among them), `event` the event
    row's by attribute name. Return the event's id, or None when the game was not as known. Raise
    LoopConnectionsBusy when all of the loop's connections are in use, and Django's OperationalError
    when the database cannot be reached."""
    loop = loop_connections()
    sql, update_fields, insert_fields = _conditional_change_statement(loop.database, tuple(changes))
    params = [*_plain_values(update_fields, changes), game_id, version, status, player_id]
    params += _plain_values(insert_fields, event)
    row = await loop.execute(sql, params)
    return None if row is None else row[0]


def _plain_values(fields: Sequence[Any], values: dict[str, Any]) -> list[Any]:
    """`values` of `fields` as the statement takes them: JSON as its text, which PostgreSQL reads as the
    column's jsonb (psycopg sends text untyped); numbers, text and aware datetimes as they are. The
    model fields' own conversions (`_values`) come to the same for these columns, at several times the
    cost."""
    return [
        json.dumps(value) if isinstance(field, JSONField) and value is not None else value
        for field in fields
        for value in (values[field.attname],)
    ]


def _conditional_change(
    db: Any, game: Game, *, version: int, status: str, fields: Sequence[str], event: GameEvent
) -> tuple[str, list[Any]]:
    """The conditional change's statement and its parameters."""
    sql, update_fields, insert_fields = _conditional_change_statement(db, tuple(fields))
    params = [*_values(game, update_fields, db), game.pk, version, status, game.player_id]
    params += _values(event, insert_fields, db)
    return sql, params


def _cursor(db: Any) -> CursorWrapper:
    """A cursor for this module's statements: on PostgreSQL one with server-side binding, whose
    statements psycopg prepares (the connection's `prepare_threshold`, set in settings), wrapped as
    Django wraps its own cursors (errors translated).

    Where Django logs queries (DEBUG, tests that capture them) it is Django's own cursor: psycopg keeps
    no text of an execution of a prepared statement, so the log would hold no SQL."""
    prepared = db.settings_dict["OPTIONS"].get("prepare_threshold") is not None
    if db.vendor != "postgresql" or not prepared or db.queries_logged:
        return db.cursor()  # type: ignore[no-any-return]
    db.close_if_health_check_failed()
    db.ensure_connection()
    db.validate_thread_sharing()
    return db.make_cursor(ServerBindingCursor(db.connection))  # type: ignore[no-any-return]


def _values(row: Game | GameEvent, fields: Sequence[Any], db: Any) -> list[Any]:
    """The `fields` of `row` as the database takes them (the fields' own conversions)."""
    return [field.get_db_prep_save(getattr(row, field.attname), db) for field in fields]


def conditional_changes() -> bool:
    """Whether the database can store a change on a condition in one statement (PostgreSQL can)."""
    return connections[DEFAULT_DB_ALIAS].vendor == "postgresql"


def conditional_changes_from_loop() -> bool:
    """`conditional_changes`, asked on the event loop: through the loop's one wrapper of the database,
    as each message's async context would otherwise make a Django connection wrapper of its own."""
    return loop_connections().database.vendor == "postgresql"  # type: ignore[no-any-return]


def _lock_statement(db: Any) -> tuple[Any, Any, str, list[str], list[str]]:
    statements = _statements()
    if "lock" not in statements:
        query = Game.objects.select_related("deal").select_for_update(of=("self",)).filter(pk=0)
        compiler = query.query.get_compiler(connection=db)
        sql, _ = compiler.as_sql()
        converters = compiler.get_converters([column for column, _, _ in compiler.select])
        # The row is the game's columns, then its deal's (select_related).
        game_fields = [field.attname for field in Game._meta.concrete_fields]
        deal_fields = [field.attname for field in Deal._meta.concrete_fields]
        statements["lock"] = (compiler, converters, sql, game_fields, deal_fields)
    return statements["lock"]  # type: ignore[no-any-return]


def _update_statement(db: Any, names: tuple[str, ...]) -> tuple[str, list[Any]]:
    statements = _statements()
    key = ("update", names)
    if key not in statements:
        quote = db.ops.quote_name
        fields = [field for field in Game._meta.concrete_fields if field.name in names]
        assert len(fields) == len(names), f"not columns of a game: {names}"
        assignments = ", ".join(f"{quote(field.column)} = %s" for field in fields)
        pk_column = quote(Game._meta.pk.column)  # type: ignore[union-attr]
        statements[key] = (f"UPDATE {quote(Game._meta.db_table)} SET {assignments} WHERE {pk_column} = %s", fields)
    return statements[key]  # type: ignore[no-any-return]


def _change_statement(db: Any, names: tuple[str, ...]) -> str:
    """The update of `names` and the event's insert as one PostgreSQL statement."""
    statements = _statements()
    key = ("change", names)
    if key not in statements:
        update_sql, _ = _update_statement(db, names)
        insert_sql, _ = _insert_statement(db)
        statements[key] = f"WITH changed AS ({update_sql}) {insert_sql}"
    return statements[key]  # type: ignore[no-any-return]


def _conditional_change_statement(db: Any, names: tuple[str, ...]) -> tuple[str, list[Any], list[Any]]:
    """The update of `names` where the game is still as known, and the event's insert only if it was."""
    statements = _statements()
    key = ("conditional change", names)
    if key not in statements:
        quote = db.ops.quote_name
        update_sql, update_fields = _update_statement(db, names)
        columns = {field.attname: field.column for field in Game._meta.concrete_fields}
        condition = " AND ".join(f"{quote(columns[attname])} = %s" for attname in _KNOWN)
        into, placeholders, returning, insert_fields = _insert_parts(db)
        statements[key] = (
            f"WITH changed AS ({update_sql} AND {condition} RETURNING 1) "
            f"{into} SELECT {placeholders} FROM changed {returning}",
            update_fields,
            insert_fields,
        )
    return statements[key]  # type: ignore[no-any-return]


# What the conditional change checks, after the game's id: the parameters follow this order.
_KNOWN = ("version", "status", "player_id")


def _insert_statement(db: Any) -> tuple[str, list[Any]]:
    statements = _statements()
    if "insert values" not in statements:
        into, placeholders, returning, fields = _insert_parts(db)
        statements["insert values"] = (f"{into} VALUES ({placeholders}) {returning}", fields)
    return statements["insert values"]  # type: ignore[no-any-return]


def _insert_parts(db: Any) -> tuple[str, str, str, list[Any]]:
    """The event's insert in pieces: `INSERT INTO … (columns)`, its placeholders, `RETURNING id`, and
    the fields the placeholders stand for."""
    statements = _statements()
    if "insert" not in statements:
        quote = db.ops.quote_name
        fields = [field for field in GameEvent._meta.concrete_fields if not field.primary_key]
        columns = ", ".join(quote(field.column) for field in fields)
        placeholders = ", ".join("%s" for _ in fields)
        pk_column = quote(GameEvent._meta.pk.column)  # type: ignore[union-attr]
        table = quote(GameEvent._meta.db_table)
        statements["insert"] = (f"INSERT INTO {table} ({columns})", placeholders, f"RETURNING {pk_column}", fields)
    return statements["insert"]  # type: ignore[no-any-return]


def _statements() -> dict[Any, Any]:
    """This thread's compiled statements: a compiler belongs to its thread's connection wrapper."""
    if not hasattr(_compiled, "statements"):
        _compiled.statements = {}
    return _compiled.statements  # type: ignore[no-any-return]
