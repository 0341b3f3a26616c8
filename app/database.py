"""The database side of a request: one read snapshot per API request, and 503 when it fails.

Only API requests touch the database, so ``/healthz``, the documentation and the demo page
answer whatever the database does. A request that finds the database gone, locked or
damaged is a quick JSON 503; its connection is dropped, and the next request opens a new
one, so the service recovers by itself when the fault goes.
"""
import sqlite3
import threading

import psycopg2
from flask import current_app, g, request
from flask_smorest import abort
from peewee import DatabaseError, InterfaceError

from db.deadlines import is_deadline_error
from db.database import begin_read_snapshot, bind_database, end_read_snapshot, sqlite_path
from db.health import file_identity

from .smorest import error_body


def init_database(app, blueprints):
    """Bind the database; give every request of ``blueprints`` a read snapshot."""
    db = bind_database(app.config["DATABASE_URL"], readonly=app.config["DATABASE_READONLY"],
                       connect_timeout=app.config["DATABASE_CONNECT_TIMEOUT"],
                       statement_timeout_ms=app.config["DATABASE_STATEMENT_TIMEOUT_MS"])
    path = sqlite_path(app.config["DATABASE_URL"])
    watch_file = path is not None and path != ":memory:"
    opened = threading.local()  # the file each worker thread's connection reads

    def drop_connection():
        if not db.is_closed():
            db.close()

    @app.before_request
    def open_snapshot():
        if request.blueprint not in blueprints:
            return
        if watch_file:
            # A connection keeps reading a deleted or replaced file: follow the path.
            identity = file_identity(path)
            if identity is None:
                drop_connection()
                abort(503)
            if identity != getattr(opened, "identity", None):
                drop_connection()
                opened.identity = identity
        db.connect(reuse_if_open=True)
        g.data_version = begin_read_snapshot(db)
        g.read_snapshot = True

    @app.teardown_request
    def close_snapshot(exc):
        if g.pop("read_snapshot", False):
            end_read_snapshot(db)

    # Peewee's exceptions, and the drivers' own from reads on the raw connection.
    @app.errorhandler(DatabaseError)
    @app.errorhandler(InterfaceError)
    @app.errorhandler(sqlite3.Error)
    @app.errorhandler(psycopg2.Error)
    def database_error(error):
        # One exception class covers "database gone" and "bad SQL": ask the database.
        g.pop("read_snapshot", None)
        drop_connection()
        if is_deadline_error(error):  # the database did not answer in time: no need to ask it again
            app.logger.error("database did not answer within its deadline: %s", error)
            return error_body(503), 503
        problem = current_app.extensions["festival_health"].problem()
        if problem is None:
            app.logger.error("database error", exc_info=error)
            return error_body(500), 500
        app.logger.error("database unavailable: %s", problem.reason, exc_info=error)
        return error_body(503), 503

    return db
