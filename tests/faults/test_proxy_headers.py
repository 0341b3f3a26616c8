"""Behind the documented nginx, each visitor has a rate-limit budget of their own exactly
when ``TRUSTED_PROXIES`` says so, and the warning about an untrusted proxy fires when it should.

Visitors are told apart by their source address: loopback has all of 127.0.0.0/8, so each
of 15 "visitors" connects to nginx from an address of its own and nginx appends it to
``X-Forwarded-For`` (docs/nginx.conf.example). Every URL is distinct, so nginx's cache
answers none of them.
"""
import http.client
import json
import ssl

from conftest import API, BIG
from test_multiprocess import nginx  # noqa: F401  (fixture)

VISITORS = 15
BUDGET = 10
WARNING = "TRUSTED_PROXIES is 0"


def through_nginx(https_port, path, key, source):
    context = ssl.create_default_context()
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    connection = http.client.HTTPSConnection("127.0.0.1", https_port, timeout=10, context=context,
                                             source_address=(source, 0))
    try:
        connection.request("GET", API + path, headers={"X-API-Key": key})
        response = connection.getresponse()
        response.read()
        return response.status, response.getheader("X-Cache-Status")
    finally:
        connection.close()


def test_forwarded_addresses_are_honoured_behind_the_nginx_example(database, serve, nginx, keys):  # noqa: F811
    trusted = serve(database, TRUSTED_PROXIES=1, RATELIMIT_DEFAULT=f"{BUDGET} per minute")
    _, https_port = nginx([trusted.port])

    # 15 visitors, one request each: every one within their own budget.
    answers = [through_nginx(https_port, f"/news?limit={i + 1}", keys[BIG], f"127.0.0.{i + 2}")
               for i in range(VISITORS)]
    assert [status for status, _ in answers] == [200] * VISITORS
    assert {cache for _, cache in answers} == {"MISS"}

    # One visitor, 15 requests: their budget runs out.
    statuses = [through_nginx(https_port, f"/downloads?limit={i + 1}", keys[BIG], "127.0.0.99")[0]
                for i in range(VISITORS)]
    assert statuses == [200] * BUDGET + [429] * (VISITORS - BUDGET)
    assert WARNING not in trusted.log()

    # Without TRUSTED_PROXIES the forwarded address is ignored, and the log says why, once.
    untrusted = serve(database, TRUSTED_PROXIES=0, RATELIMIT_DEFAULT=f"{BUDGET} per minute")
    statuses = [untrusted.get(f"/news?limit={i + 1}", keys[BIG],
                              headers={"X-Forwarded-For": f"203.0.113.{i + 1}"}).status for i in range(VISITORS)]
    assert statuses == [200] * BUDGET + [429] * (VISITORS - BUDGET)
    warnings = [line for line in untrusted.log().splitlines() if WARNING in line]
    assert len(warnings) == 1 and json.loads(warnings[0])["level"] == "WARNING"
