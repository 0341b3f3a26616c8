"""Where a request's time goes, in process: the WSGI app called directly, no server, no network.

    DATABASE_URL=sqlite:////path/festival.db .venv/bin/python bench/profile_request.py KEY \
        [--path '/public-api/v1/programmes?subFestSlug=general&limit=20'] [-n 2000] [--profile]
        [--cpu] [--log] [--if-none-match] [--setting NAME=VALUE ...]

Calls the service's WSGI app (everything a request passes through, response cache off, rate
limits and access log as configured) and the bare rows baseline of ``bench/baselines.py``
in the same process, and prints microseconds per request for each; ``--profile`` adds
cProfile's top functions for the service's path (by cumulative and by own time). ``--cpu``
counts the process's CPU time instead of the clock's (a shared machine's load then moves
it less); ``--log`` writes the access lines (to stderr) as a served request does;
``--setting`` overrides one of the settings above (``RESPONSE_CACHE_SECONDS=60``);
``--if-none-match`` sends the answer's own ETag back, so each request is a revalidation
(a ``304``; with ``RESPONSE_CACHE_SECONDS`` set, answered from the response cache).
``bench/profile_before_after.py`` runs it on two checkouts side by side.
"""
import argparse
import cProfile
import io
import os
import pstats
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from werkzeug.test import EnvironBuilder  # noqa: E402

DEFAULT_PATHS = (
    "/public-api/v1/programmes?subFestSlug=general&limit=20",
    "/public-api/v1/candidate-result?chestNo=1001&subFestSlug=general",
    "/public-api/v1/news?limit=20",
)


def environ_for(path, key, etag=None):
    base, _, query = path.partition("?")
    headers = {"X-API-Key": key, **({"If-None-Match": etag} if etag else {})}
    return EnvironBuilder(path=base, query_string=query, headers=headers).get_environ()


def etag_of(app, environ):
    found = []
    b"".join(app(dict(environ), lambda s, h, e=None: found.extend(v for k, v in h if k.lower() == "etag")))
    return found[0]


def call(app, environ):
    status = []
    body = b"".join(app(dict(environ), lambda s, h, e=None: status.append(s)))
    return status[0], body


def per_request(app, environ, n, clock=time.perf_counter):
    call(app, environ)  # warm: connection, caches per revision
    started = clock()
    for _ in range(n):
        call(app, environ)
    return (clock() - started) / n * 1e6


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("key")
    parser.add_argument("--path", action="append")
    parser.add_argument("-n", type=int, default=2000)
    parser.add_argument("--profile", action="store_true")
    parser.add_argument("--cpu", action="store_true")
    parser.add_argument("--log", action="store_true")
    parser.add_argument("--if-none-match", action="store_true")
    parser.add_argument("--setting", action="append", default=[], metavar="NAME=VALUE")
    options = parser.parse_args()
    clock = time.process_time if options.cpu else time.perf_counter

    from app import create_app
    from baselines import rows_app
    from db.database import sqlite_path

    from app.config import parse_setting

    settings = {"RESPONSE_CACHE_SECONDS": 0, "RATELIMIT_DEFAULT": "", "LOG_LEVEL": "INFO" if options.log else "WARNING"}
    for setting in options.setting:
        name, _, value = setting.partition("=")
        settings[name] = parse_setting(name, value)
    app = create_app(settings)
    wsgi = app.wsgi_app
    for path in options.path or DEFAULT_PATHS:
        environ = environ_for(path, options.key)
        if options.if_none_match:
            environ = environ_for(path, options.key, etag_of(wsgi, environ))
        status, body = call(wsgi, environ)
        print(f"{per_request(wsgi, environ, options.n, clock):8.1f} us  {status}  {len(body):6d} B  {path}", flush=True)
        if options.profile:
            profiler = cProfile.Profile()
            profiler.enable()
            for _ in range(options.n):
                call(wsgi, environ)
            profiler.disable()
            for order in ("cumulative", "tottime"):
                out = io.StringIO()
                pstats.Stats(profiler, stream=out).sort_stats(order).print_stats(25)
                print(out.getvalue())

    db_path = sqlite_path(os.environ.get("DATABASE_URL", "sqlite:///festival.db"))
    if db_path is None or options.setting:
        return  # the bare baseline reads a SQLite file
    import sqlite3
    sub_fest = sqlite3.connect(db_path).execute("SELECT id FROM sub_fest WHERE slug = 'general'").fetchone()[0]
    import uuid
    rows = rows_app(db_path)
    environ = environ_for(f"/?subFestId={uuid.UUID(hex=sub_fest)}", "")
    print(f"{per_request(rows, environ, options.n):8.1f} us  bare rows (20 joined + count)")


if __name__ == "__main__":
    main()
