"""What the benchmarks share: the ``festival-api`` command, a free port, the run's work folder
and a scratch PostgreSQL database."""
import contextlib
import http.client
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import urllib.parse

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
API = "/public-api/v1"
FESTIVAL = "kalolsavam-2026"


def cli(*args, env, cwd=None):
    """Run ``festival-api ARGS`` and return its stdout."""
    done = subprocess.run([sys.executable, "-m", "app.cli", *args], env=env, cwd=cwd, check=True,
                          capture_output=True, text=True)
    return done.stdout


def free_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def get_json(port, key, path, **params):
    """The JSON answer of the service on ``port`` to ``GET`` ``path`` (below the API) with ``key``."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        connection.request("GET", f"{API}{path}?{urllib.parse.urlencode(params)}", headers={"X-API-Key": key})
        return json.loads(connection.getresponse().read())
    finally:
        connection.close()


def fetch_changed(get, changes, pages):
    """What a page polling ``/changes`` fetches again for ``changes`` (that answer) with
    ``get(path, **params)``, as docs/clients.md's browser recipe does: the first of ``pages``
    (its ``(path, params)``, the latest results first) when a programme changed, and each of
    its ``/toppers`` whose leaderboard changed (not the other boards ``/changes`` names)."""
    if any(change["kind"] == "programme" for change in changes["data"]):
        path, params = pages[0]
        get(path, **params)
    moved = {change["id"] for change in changes["data"] if change["kind"] == "leaderboard"}
    for path, params in pages:
        if path == "/toppers" and params["topperPlaceholderId"] in moved:
            get(path, **params)


@contextlib.contextmanager
def work_folder(prefix, keep=False, holding=""):
    """A temporary folder for the run's databases and logs: removed after, or with ``keep``
    (``--keep``) kept and printed, with what it is ``holding``."""
    workdir = tempfile.mkdtemp(prefix=prefix)
    try:
        yield workdir
    finally:
        if keep:
            print(f"Kept {workdir}{holding}")
        else:
            shutil.rmtree(workdir, ignore_errors=True)


@contextlib.contextmanager
def scratch_postgres(server_url, name):
    """A new database ``name`` on the PostgreSQL server of ``server_url``: its URL. Dropped after."""
    import psycopg2
    from psycopg2 import sql

    admin = psycopg2.connect(server_url)
    admin.autocommit = True
    with admin.cursor() as cur:
        cur.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
    try:
        yield f"{server_url.rsplit('/', 1)[0]}/{name}"
    finally:
        with admin.cursor() as cur:
            cur.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name)))
        admin.close()
