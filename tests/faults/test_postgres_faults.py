"""PostgreSQL faults on the real server: a server that hangs (a paused proxy in between), and
connections the server kills (``pg_terminate_backend``, as on a restart or failover)."""
import time
from concurrent.futures import ThreadPoolExecutor


from conftest import BIG
import pg_scratch

from .conftest import target, through

STATEMENT_MS = 1000
CONNECT_SECONDS = 2
BURST = 12
RECOVERY_SECONDS = 10


def with_query(url, **params):
    return url + ("&" if "?" in url else "?") + "&".join(f"{name}={value}" for name, value in params.items())


def test_a_hung_postgresql_is_a_503_within_the_deadline_and_health_answers_within_a_second(
        postgres_database, serve, proxy, keys):
    hung = proxy(*target(postgres_database))
    url = with_query(through(postgres_database, hung.port).replace("postgresql://", "postgresql+pool://", 1),
                     max_connections=8)
    server = serve(url, threads=4, DATABASE_STATEMENT_TIMEOUT_MS=STATEMENT_MS,
                   DATABASE_CONNECT_TIMEOUT=CONNECT_SECONDS)
    for _ in range(4):
        assert server.get("/news", keys[BIG]).status == 200

    hung.pause()
    with ThreadPoolExecutor(BURST) as pool:
        burst = [pool.submit(server.get, "/news", keys[BIG], timeout=10) for _ in range(BURST)]
        time.sleep(0.3)
        health = server.get("/healthz", timeout=10)
        answers = [future.result() for future in burst]
    print(f"hung PostgreSQL: /healthz {health.status} in {health.seconds:.3f} s; requests",
          [(a.status, round(a.seconds, 2)) for a in answers])
    assert health.status == 503 and health.seconds < 1, health
    assert [a.status for a in answers] == [503] * BURST
    # Each request waits at most for its deadline: the statement's (plus half a second of
    # grace) or connecting's; those that come after the first give up at once.
    assert max(a.seconds for a in answers) < CONNECT_SECONDS + 1, [round(a.seconds, 2) for a in answers]

    hung.resume()
    deadline = time.monotonic() + RECOVERY_SECONDS
    while server.get("/news", keys[BIG]).status != 200:
        assert time.monotonic() < deadline, "the service did not recover when PostgreSQL answered again"
        time.sleep(0.2)
    assert server.get("/healthz").status == 200


def test_killed_connections_are_replaced_never_a_500(postgres_database, serve, keys):
    name = "fds-faults-killed"
    server = serve(with_query(postgres_database, application_name=name), threads=4)
    for _ in range(8):
        assert server.get("/news", keys[BIG]).status == 200
    with pg_scratch.admin_connection(postgres_database) as cursor:
        cursor.execute("SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE application_name = %s",
                       (name,))
        assert cursor.fetchone()[0] >= 1
    statuses = [server.get("/news", keys[BIG]).status for _ in range(30)]
    assert 500 not in statuses and set(statuses) <= {200, 503}, statuses
    assert statuses[-5:] == [200] * 5
