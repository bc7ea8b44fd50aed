"""The statements on the hot path of every move: read a game with its deal (locked or not), and store a
change with its event on condition that the game is still at the version it was read at.

Every change to a game goes through `save_change`: the game's new column values and the event's row,
written only if the stored game is still at the known version, in play and the same player's. On
PostgreSQL that is one statement (the update as a data-modifying WITH, the insert only if it updated),
which outside a transaction is its own; SQLite has no such WITH, so there it is two in a transaction.
A change under the game's lock (a finish, a hint) is the same statement, whose condition then holds.
From the event loop (`save_change_from_loop`), the changes given during one turn of the loop go
together in one such statement over arrays (`_coalesced_change_statement`).

Each statement is compiled once per thread and then only executed: through the ORM's query API every
move would compile the same queries again, a large share of the move's CPU. On
PostgreSQL they are also prepared on each connection (`_cursor`): the server parses and plans each once
per connection instead of once per move (docs/performance.md, "The move from the event loop").
"""

from __future__ import annotations

import json
import threading
from collections.abc import Sequence
from typing import Any

from django.db import DEFAULT_DB_ALIAS, connections, transaction
from django.db.backends.postgresql.base import ServerBindingCursor  # type: ignore[attr-defined]  # not in django-stubs
from django.db.backends.utils import CursorWrapper
from django.db.models import JSONField

from realtime.loop_db import loop_connections

from .models import Deal, Game, GameEvent

_compiled = threading.local()


def read_game(game_id: int, *, lock: bool) -> Game | None:
    """The game row with its deal; None if there is no such game. With `lock`, the game row is locked
    FOR UPDATE (the game row only: not its deal, or every player of the day's deal would wait for each
    other), for the caller's transaction."""
    db = connections[DEFAULT_DB_ALIAS]
    compiler, converters, sql, game_fields, deal_fields = _read_statement(db, lock)
    with _cursor(db) as cursor:
        cursor.execute(sql, [game_id])
        rows = cursor.fetchall()
    if not rows:
        return None
    row = next(iter(compiler.apply_converters(rows, converters))) if converters else rows[0]
    game = Game.from_db(db.alias, game_fields, row[: len(game_fields)])
    game.deal = Deal.from_db(db.alias, deal_fields, row[len(game_fields) :])
    return game


def save_change(
    *, game_id: int, player_id: int, version: int, changes: dict[str, Any], event: dict[str, Any]
) -> int | None:
    """Write `changes` (the game's new column values by field name, its new version among them) and
    insert `event` (the event row's values by attribute name), only if the stored game is still at
    `version`, in play and `player_id`'s. Return the event's id, or None when the game was not so."""
    db = connections[DEFAULT_DB_ALIAS]
    sql, update_fields, insert_fields = _change_statement(db, tuple(changes))
    values, condition, event_values = change_values(
        db,
        update_fields,
        insert_fields,
        game_id=game_id,
        player_id=player_id,
        version=version,
        changes=changes,
        event=event,
    )
    with _cursor(db) as cursor:
        if db.vendor == "postgresql":
            cursor.execute(sql, [*values, *condition, *event_values])
            row = cursor.fetchone()
            return None if row is None else row[0]  # type: ignore[no-any-return]
        with transaction.atomic(using=db.alias):
            cursor.execute(sql, [*values, *condition])
            if cursor.rowcount == 0:
                return None
            insert_sql, _ = _insert_statement(db)
            cursor.execute(insert_sql, event_values)
            return cursor.fetchone()[0]  # type: ignore[no-any-return]


async def save_change_from_loop(
    *, game_id: int, player_id: int, version: int, changes: dict[str, Any], event: dict[str, Any]
) -> int | None:
    """`save_change` sent from the event loop on one of its own connections (realtime/loop_db.py)
    instead of a database thread, in one statement with the other changes given during the loop's turn
    (the same statement with the same values when there is none). PostgreSQL only (`changes_from_loop`).
    Raise LoopConnectionsBusy when all of the loop's connections are in use, and Django's
    OperationalError when the database cannot be reached."""
    loop = loop_connections()
    sql, update_fields, insert_fields = _coalesced_change_statement(loop.database, tuple(changes))
    sql_alone, _, _ = _loop_change_statement(loop.database, tuple(changes))
    values, condition, event_values = change_values(
        loop.database,
        update_fields,
        insert_fields,
        game_id=game_id,
        player_id=player_id,
        version=version,
        changes=changes,
        event=event,
    )
    row = await loop.execute_coalesced(sql, sql_alone, str(game_id), [*values, *condition, *event_values])
    return None if row is None else int(row[-1])  # type: ignore[arg-type]  # the event's id, never null


def change_values(
    db: Any,
    update_fields: list[Any],
    insert_fields: list[Any],
    *,
    game_id: int,
    player_id: int,
    version: int,
    changes: dict[str, Any],
    event: dict[str, Any],
) -> tuple[list[Any], list[Any], list[Any]]:
    """The change statement's values in its placeholders' order: the game's new columns, the condition
    (the game, its version, in play, its player: `_KNOWN`) and the event row."""
    condition: list[Any] = [game_id, version, Game.Status.PLAYING, player_id]
    return _db_values(update_fields, changes, db), condition, _db_values(insert_fields, event, db)


def changes_from_loop() -> bool:
    """Whether a change may be sent from the event loop (PostgreSQL: the loop's connections are
    psycopg's), asked through the loop's one wrapper of the database, as each message's async context
    would otherwise make a Django connection wrapper of its own."""
    return loop_connections().database.vendor == "postgresql"  # type: ignore[no-any-return]


def _db_values(fields: Sequence[Any], values: dict[str, Any], db: Any) -> list[Any]:
    """`values` of `fields` as the statement takes them. On PostgreSQL: JSON as its text, which the
    server reads as the column's jsonb (psycopg sends text untyped), numbers, text and aware datetimes as
    they are; the model fields' own conversions come to the same for these columns, at several times
    the cost. Elsewhere, the fields' own conversions."""
    if db.vendor != "postgresql":
        return [field.get_db_prep_save(values[field.attname], db) for field in fields]
    return [
        json.dumps(value) if isinstance(field, JSONField) and value is not None else value
        for field in fields
        for value in (values[field.attname],)
    ]


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


def _read_statement(db: Any, lock: bool) -> tuple[Any, Any, str, list[str], list[str]]:
    statements = _statements()
    key = ("read", lock)
    if key not in statements:
        query = Game.objects.select_related("deal").filter(pk=0)
        if lock:
            query = query.select_for_update(of=("self",))
        compiler = query.query.get_compiler(connection=db)
        sql, _ = compiler.as_sql()
        converters = compiler.get_converters([column for column, _, _ in compiler.select])
        # The row is the game's columns, then its deal's (select_related).
        game_fields = [field.attname for field in Game._meta.concrete_fields]
        deal_fields = [field.attname for field in Deal._meta.concrete_fields]
        statements[key] = (compiler, converters, sql, game_fields, deal_fields)
    return statements[key]  # type: ignore[no-any-return]


# What the change's condition checks, after the game's id: the parameters follow this order.
_KNOWN = ("version", "status", "player_id")


def _change_statement(db: Any, names: tuple[str, ...]) -> tuple[str, list[Any], list[Any]]:
    """The update of `names` where the game is still as known and, on PostgreSQL, the event's insert in
    the same statement, only if it updated; with the fields their placeholders stand for."""
    statements = _statements()
    key = ("change", names)
    if key not in statements:
        quote = db.ops.quote_name
        update_fields = [field for field in Game._meta.concrete_fields if field.name in names]
        assert len(update_fields) == len(names), f"not columns of a game: {names}"
        columns = {field.attname: field.column for field in Game._meta.concrete_fields}
        assignments = ", ".join(f"{quote(field.column)} = %s" for field in update_fields)
        condition = " AND ".join(f"{quote(column)} = %s" for column in (columns["id"], *map(columns.get, _KNOWN)))
        update_sql = f"UPDATE {quote(Game._meta.db_table)} SET {assignments} WHERE {condition}"
        into, placeholders, returning, insert_fields = _insert_parts(db)
        if db.vendor == "postgresql":
            sql = f"WITH changed AS ({update_sql} RETURNING 1) {into} SELECT {placeholders} FROM changed {returning}"
        else:
            sql = update_sql
        statements[key] = (sql, update_fields, insert_fields)
    return statements[key]  # type: ignore[no-any-return]


def _condition_fields() -> list[Any]:
    """The game's fields the change's condition compares, in its placeholders' order: the id, then `_KNOWN`."""
    game_fields = {field.attname: field for field in Game._meta.concrete_fields}
    return [game_fields[name] for name in ("id", *_KNOWN)]


def _loop_change_statement(db: Any, names: tuple[str, ...]) -> tuple[str, list[Any], list[Any]]:
    """`_change_statement` as the loop's connections take it: placeholders `$1`, `$2`, … each cast to its
    column's type, so that the values go as text (realtime/loop_db.py)."""
    statements = _statements()
    key = ("loop change", names)
    if key not in statements:
        sql, update_fields, insert_fields = _change_statement(db, names)
        *pieces, tail = sql.split("%s")
        types = [field.db_type(db) for field in (*update_fields, *_condition_fields(), *insert_fields)]
        cast = [f"{piece}${number}::{kind}" for number, (piece, kind) in enumerate(zip(pieces, types, strict=True), 1)]
        statements[key] = ("".join(cast) + tail, update_fields, insert_fields)
    return statements[key]  # type: ignore[no-any-return]


def _coalesced_change_statement(db: Any, names: tuple[str, ...]) -> tuple[str, list[Any], list[Any]]:
    """`_change_statement` for the changes of one turn of the loop at once (realtime/loop_db.py): each
    placeholder takes one column of the changes' values (`change_values`' order) as an array; it answers
    (the game, the event's id) for each change it stored. A change's game is its key: one change a game
    a statement, as two would meet the same row.

    A game whose row another transaction holds (a finish, a hint, a win: the locking path) is skipped,
    not waited for, as the statement carries other games' moves: its change is not stored, and its
    caller reads the game again on a database thread, as after any change made meanwhile."""
    statements = _statements()
    key = ("coalesced change", names)
    if key not in statements:
        quote = db.ops.quote_name
        _, update_fields, insert_fields = _change_statement(db, names)
        condition = _condition_fields()
        fields = [*update_fields, *condition, *insert_fields]
        arrays = ", ".join(f"${number}::{field.db_type(db)}[]" for number, field in enumerate(fields, 1))
        columns = [f"c{number}" for number in range(1, len(fields) + 1)]
        assigned = columns[: len(update_fields)]
        known = columns[len(update_fields) : len(update_fields) + len(condition)]
        inserted = columns[len(update_fields) + len(condition) :]
        table = quote(Game._meta.db_table)
        assignments = ", ".join(
            f"{quote(field.column)} = c.{name}" for field, name in zip(update_fields, assigned, strict=True)
        )
        where = " AND ".join(
            f"{table}.{quote(field.column)} = c.{name}" for field, name in zip(condition, known, strict=True)
        )
        into, _, _, _ = _insert_parts(db)
        event_game = quote(GameEvent._meta.get_field("game").column)
        # Each change's game found by its key, locked if free (the condition checked again once locked),
        # then updated where it was found: lookups one row at a time, so that no plan of the statement,
        # made for arrays of any length, scans the table instead.
        sql = (
            f"WITH changed AS (UPDATE {table} SET {assignments} FROM (SELECT * FROM unnest({arrays})"
            f" AS c({', '.join(columns)}) CROSS JOIN LATERAL (SELECT {table}.ctid AS place FROM {table}"
            f" WHERE {where} FOR NO KEY UPDATE OF {table} SKIP LOCKED) AS free) AS c WHERE {table}.ctid = c.place"
            f" RETURNING {', '.join(f'c.{name}' for name in inserted)})"
            f" {into} SELECT * FROM changed RETURNING {event_game}, {quote(GameEvent._meta.pk.column)}"  # type: ignore[union-attr]
        )
        statements[key] = (sql, update_fields, insert_fields)
    return statements[key]  # type: ignore[no-any-return]


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
