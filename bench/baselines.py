"""Bare WSGI baselines the service is measured against, served by waitress like the service.

    python bench/baselines.py hello PORT
    python bench/baselines.py rows PORT DATABASE_FILE

``hello`` answers a fixed JSON body. ``rows`` answers ``GET /?subFestId=ID`` with the first 20
programmes of the sub-fest joined with their master record and category, plus the count,
as JSON (sqlite3 + orjson, one connection per thread): the least any list request costs.
Like the service, each keeps to one CPU unless ``PIN_CPU=false``.
"""
import logging
import os
import sqlite3
import sys
import threading
import urllib.parse
import uuid

import orjson
from waitress import serve

from app.config import SETTINGS, parse_setting
from app.server import pin_to_cpu

HELLO = b'{"hello":"world"}'

ROWS_SQL = """
SELECT sfp.id, sfp.code, sfp.status, sfp.published_at, p.id, p.code, p.name, p.name_local,
       p.program_type, c.id, c.name
FROM sub_fest_programme AS sfp
JOIN programme AS p ON p.id = sfp.programme_id
LEFT JOIN category AS c ON c.id = sfp.category_id
WHERE sfp.sub_fest_id = ? AND sfp.is_active AND sfp.is_public AND p.is_active AND p.is_public
ORDER BY sfp.display_order, sfp.id
LIMIT 20
"""
COUNT_SQL = """
SELECT COUNT(*) FROM sub_fest_programme AS sfp JOIN programme AS p ON p.id = sfp.programme_id
WHERE sfp.sub_fest_id = ? AND sfp.is_active AND sfp.is_public AND p.is_active AND p.is_public
"""
FIELDS = ("id", "code", "status", "publishedAt", "programId", "programCode", "name", "nameLocal",
          "programType", "categoryId", "categoryName")


def hello_app(environ, start_response):
    start_response("200 OK", [("Content-Type", "application/json"), ("Content-Length", str(len(HELLO)))])
    return [HELLO]


def rows_app(path):
    local = threading.local()

    def app(environ, start_response):
        connection = getattr(local, "connection", None)
        if connection is None:
            connection = local.connection = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        query = urllib.parse.parse_qs(environ.get("QUERY_STRING", ""))
        sub_fest = uuid.UUID(query["subFestId"][0]).hex
        rows = connection.execute(ROWS_SQL, (sub_fest,)).fetchall()
        total = connection.execute(COUNT_SQL, (sub_fest,)).fetchone()[0]
        body = orjson.dumps({"data": [dict(zip(FIELDS, row)) for row in rows], "meta": {"total": total}})
        start_response("200 OK", [("Content-Type", "application/json"), ("Content-Length", str(len(body)))])
        return [body]

    return app


if __name__ == "__main__":
    # waitress warns on every request while its workers are busy; the service limits that
    # line (app/server/__init__.py), so the baselines must not pay for it either.
    logging.getLogger("waitress.queue").setLevel(logging.ERROR)
    if parse_setting("PIN_CPU", os.environ.get("PIN_CPU", SETTINGS["PIN_CPU"][0])):
        pin_to_cpu()  # as `festival-api serve` does, so that the two compare alike
    kind, port = sys.argv[1], int(sys.argv[2])
    app = hello_app if kind == "hello" else rows_app(sys.argv[3])
    serve(app, host="127.0.0.1", port=port, threads=int(sys.argv[4]) if len(sys.argv) > 4 else 8,
          _quiet=True)
