"""Access lines on the real server: written once the answer is sent, one for every request
on a keep-alive connection, whatever answered it (a view, the response cache, a 304, a
HEAD, an error, Flask)."""
import collections
import http.client
import json
import threading
import time

from conftest import API, BIG


def access_lines(server):
    return [json.loads(line) for line in server.log().splitlines()
            if line.startswith("{") and '"festival_api.access"' in line]


def settled(server):
    """How many access lines the log holds once the last answered request's line is in it
    (it is written just after the answer)."""
    count = len(access_lines(server))
    while True:
        time.sleep(0.2)
        now = len(access_lines(server))
        if now == count:
            return count
        count = now


def lines_after(server, earlier, count, timeout=5.0):
    """``count`` access lines after the first ``earlier``, waiting for them (each is written
    just after its answer is sent)."""
    deadline = time.monotonic() + timeout
    while True:
        lines = access_lines(server)[earlier:]
        if len(lines) >= count or time.monotonic() > deadline:
            return lines
        time.sleep(0.05)


def test_every_request_on_a_keep_alive_connection_gets_one_line_after_its_answer(database, serve, keys):
    server = serve(database, RESPONSE_CACHE_SECONDS=60)
    earlier = settled(server)  # the start's health checks
    connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=5)
    key = {"X-API-Key": keys[BIG]}
    sent = []

    def ask(method, path, headers):
        connection.request(method, path, headers=headers)
        response = connection.getresponse()
        body = response.read()
        sent.append((method, path.split("?")[0], response.status, len(body)))
        return response, body

    news = f"{API}/news?limit=3"
    first, body = ask("GET", news, key)                                  # made by the view
    assert first.status == 200 and body
    etag = first.getheader("ETag")
    assert ask("GET", news, key)[0].status == 200                        # from the response cache
    assert ask("GET", news, {**key, "If-None-Match": etag})[0].status == 304
    head, head_body = ask("HEAD", news, key)
    assert head.status == 200 and head_body == b""
    assert ask("GET", news, {})[0].status == 401                         # no key
    assert ask("GET", f"{API}/news?limit=0", key)[0].status == 400
    assert ask("GET", f"{API}/no-such-endpoint", key)[0].status == 404   # through Flask
    assert ask("GET", "/healthz", {})[0].status == 200
    connection.close()

    # Lines are written in batches (app/door/access_log.py), each request's in its place among
    # them before its answer is sent: a request sent once the one before it was answered is
    # logged after it, whichever thread serves it (/healthz has its own).
    lines = lines_after(server, earlier, len(sent))
    assert [(line["method"], line["path"], line["status"], line["bytes"]) for line in lines] == sent
    assert [line["cache"] for line in lines[:3]] == ["miss", "hit", "hit"]
    assert all(line["festival"] == BIG for line in lines[:4])
    assert all(isinstance(line["duration_ms"], float) and 0 <= line["duration_ms"] < 5000 for line in lines)
    assert keys[BIG] not in server.log()


def test_under_load_every_request_gets_one_line_and_the_held_ones_are_written_when_requests_stop(
        database, serve, keys):
    server = serve(database, threads=4)
    earlier = settled(server)
    paths = [f"{API}/news?limit=3", f"{API}/subfests", f"{API}/no-such-endpoint", f"{API}/news?limit=0"]
    sent = collections.Counter()
    lock = threading.Lock()

    def client(index):
        connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
        mine = collections.Counter()
        for turn in range(30):
            path = paths[(index + turn) % len(paths)]
            connection.request("GET", path, headers={"X-API-Key": keys[BIG]})
            response = connection.getresponse()
            response.read()
            mine[(path.split("?")[0], response.status)] += 1
        connection.close()
        with lock:
            sent.update(mine)

    clients = [threading.Thread(target=client, args=(index,)) for index in range(32)]
    for thread in clients:
        thread.start()
    for thread in clients:
        thread.join(60)
    assert sum(sent.values()) == 32 * 30

    # Lines held while requests waited are written once none waits: none is lost or kept.
    lines = lines_after(server, earlier, sum(sent.values()), timeout=2.0)
    assert collections.Counter((line["path"], line["status"]) for line in lines) == sent
    time.sleep(0.3)
    assert len(access_lines(server)) == earlier + sum(sent.values())
