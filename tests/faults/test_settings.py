"""Every setting is checked before `festival-api serve` listens: one line, exit status 2."""
import os
import subprocess

import pytest

from test_multiprocess import festival_api, free_port

RUN_SECONDS = 15


def run(args, url, **settings):
    """``(exit status, stderr)`` of `festival-api ARGS`; a command still running after
    ``RUN_SECONDS`` (a server that started) is stopped and reported as status None."""
    env = {**os.environ, "DATABASE_URL": url, **settings}
    process = subprocess.Popen(festival_api() + args, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True)
    try:
        _, stderr = process.communicate(timeout=RUN_SECONDS)
        return process.returncode, stderr
    except subprocess.TimeoutExpired:
        process.kill()
        _, stderr = process.communicate(timeout=10)
        return None, stderr


@pytest.mark.parametrize("settings, args, named", [
    ({"PORT": "abc"}, [], "PORT"),
    ({"THREADS": "x"}, [], "THREADS"),
    ({"THREADS": "0"}, [], "THREADS"),
    ({"RESPONSE_CACHE_SECONDS": "abc"}, [], "RESPONSE_CACHE_SECONDS"),
    ({"RATELIMIT_DEFAULT": "garbage"}, [], "RATELIMIT_DEFAULT"),
    ({"CONNECTION_LIMIT": "-5"}, [], "CONNECTION_LIMIT"),
    ({"CONNECTIONS_PER_ADDRESS": "-1"}, [], "CONNECTIONS_PER_ADDRESS"),
    ({"HEADER_TIMEOUT": "0"}, [], "HEADER_TIMEOUT"),
    ({"HEALTH_PORT": "99999"}, [], "HEALTH_PORT"),
    ({"RATELIMIT_WRONG_KEYS": "garbage"}, [], "RATELIMIT_WRONG_KEYS"),
    ({}, ["--host", "999.1.1.1"], "--host"),
    ({}, ["--port", "99999"], "--port"),
    ({}, ["--threads", "0"], "--threads"),
], ids=lambda value: str(value) if isinstance(value, str) else None)
def test_a_bad_setting_stops_serve_with_one_line_and_exit_2(database, settings, args, named):
    args = ["serve", "--port", str(free_port())] + args if "--port" not in args else ["serve"] + args
    status, stderr = run(args, database, **settings)
    assert status == 2, stderr
    lines = stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: ") and named in lines[0], stderr
    assert "Traceback" not in stderr and "Serving on" not in stderr


@pytest.mark.parametrize("settings", [{"PORT": "abc"}, {"THREADS": "x"}, {"RESPONSE_CACHE_SECONDS": "abc"}],
                         ids=lambda s: next(iter(s)))
def test_a_bad_setting_never_breaks_help(database, settings):
    for args in (["--help"], ["serve", "--help"], ["import", "--help"]):
        status, stderr = run(args, database, **settings)
        assert status == 0 and "Traceback" not in stderr, stderr
