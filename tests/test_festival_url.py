"""URLs that name their festival (``festival=``, app/door/festival_url.py; docs/http.md, "Caches"):
checked against the key, answered as the plain URL is, and marked for shared caches.

A cache that keys on the URL alone (a CDN) must never hand one festival's answer to another's
site: an answer to such a URL is refused (403, never stored) to a key of another festival,
and only such answers carry ``s-maxage`` and leave ``X-API-Key`` out of ``Vary``."""
import pytest

from conftest import API, BIG, SMALL
from custom_apps import app_with  # noqa: F401  (fixture)
from test_parameter_typos import ENDPOINTS, needed, operations, selectors  # noqa: F401  (fixtures)


def header_names(response, name):
    return {part.strip().lower() for part in response.headers.get(name, "").split(",") if part.strip()}


def shared_control(config):
    return (f"public, max-age={config['CACHE_MAX_AGE']}, s-maxage={config['CACHE_SHARED_MAX_AGE']}, "
            f"stale-while-revalidate={config['CACHE_STALE_WHILE_REVALIDATE']}, "
            f"stale-if-error={config['CACHE_STALE_IF_ERROR']}")


@pytest.mark.parametrize("endpoint", ENDPOINTS)
def test_every_endpoint_answers_a_url_naming_its_festival_as_the_plain_url(api, operations, selectors, endpoint):
    query = needed(endpoint, operations[endpoint], selectors)
    plain = api.get(endpoint, **query)
    named = api.get(endpoint, festival=BIG, **query)
    assert plain.status_code == 200, plain.get_json()
    assert named.status_code == 200, named.get_json()
    assert named.get_data() == plain.get_data()
    assert named.headers["ETag"] == plain.headers["ETag"]
    config = api.client.application.config
    # The plain URL answers per key: only a cache that keys on the key may keep it.
    assert plain.headers["Cache-Control"] == f"public, max-age={config['CACHE_MAX_AGE']}"
    assert "x-api-key" in header_names(plain, "Vary")
    # The named URL answers the same for every key of the festival: any shared cache may keep it.
    assert named.headers["Cache-Control"] == shared_control(config)
    assert header_names(named, "Vary") == {"accept-encoding"}
    # Its 304 says the same to caches.
    revalidated = api.get(endpoint, festival=BIG, headers={"If-None-Match": named.headers["ETag"]}, **query)
    assert revalidated.status_code == 304
    assert revalidated.headers["Cache-Control"] == shared_control(config)


def test_the_festival_is_matched_ignoring_case_and_each_festival_has_its_own_url(api):
    assert api.ok("/news", festival=BIG.upper())["context"]["festival"]["slug"] == BIG
    assert api.ok("/news", key=SMALL, festival=SMALL)["context"]["festival"]["slug"] == SMALL


@pytest.mark.parametrize("named", [SMALL, "no-such-festival", "", BIG + "x"])
def test_a_key_of_another_festival_is_refused_403_and_no_cache_keeps_it(api, named):
    response = api.get("/news", key=BIG, festival=named)
    body = response.get_json()
    assert response.status_code == 403
    assert body["code"] == 403 and body["status"] == "Forbidden"
    # The same words whether the named festival exists or not; the key's own festival is named.
    assert body["message"] == ("This API key belongs to another festival than the URL names (festival=); "
                               f"its URLs name festival={BIG}.")
    assert set(body) == {"code", "status", "message"}
    assert response.headers["Cache-Control"] == "no-store"
    assert response.headers["Access-Control-Allow-Origin"] == "*"
    assert "ETag" not in response.headers


def test_no_key_is_still_a_401_and_the_parameter_twice_a_400(api):
    missing = api.get("/news", key=None, festival=BIG)
    assert missing.status_code == 401 and missing.headers["Cache-Control"] == "no-store"
    twice = api.client.get(f"{API}/news?festival={BIG}&festival={SMALL}", headers={"X-API-Key": api.keys[BIG]})
    assert twice.status_code == 400
    assert twice.get_json()["errors"] == {"query": {"festival": ["Send this parameter once."]}}
    assert twice.headers["Cache-Control"] == "no-store"


def test_a_private_filter_stays_private_on_a_named_url(api, selectors):
    response = api.get("/candidates", festival=BIG, subFestSlug=selectors["subFestSlug"], admNoPattern="X-1")
    assert response.headers["Cache-Control"] == "private, no-store"


def test_the_stale_directives_follow_their_settings(app_with, keys):
    client = app_with(CACHE_MAX_AGE=0, CACHE_SHARED_MAX_AGE=20, CACHE_STALE_WHILE_REVALIDATE=0,
                      CACHE_STALE_IF_ERROR=600).test_client()
    named = client.get(f"{API}/news?festival={BIG}", headers={"X-API-Key": keys[BIG]})
    plain = client.get(f"{API}/news", headers={"X-API-Key": keys[BIG]})
    assert named.headers["Cache-Control"] == "public, max-age=0, s-maxage=20, stale-if-error=600"
    assert plain.headers["Cache-Control"] == "no-cache"


@pytest.mark.parametrize("typo", ["Festival", "festivals", "festivl", "FESTIVAL"])
def test_a_typo_of_the_parameter_is_a_400_not_a_url_that_names_nothing(api, typo):
    response = api.get("/news", **{typo: BIG})
    assert response.status_code == 400
    assert response.get_json()["errors"] == {"query": {typo: ["Unknown parameter: did you mean festival?"]}}
    assert response.headers["Cache-Control"] == "no-store"


def test_the_bracket_key_counts_as_the_name(api):
    named = api.client.get(f"{API}/news?festival[]={BIG}", headers={"X-API-Key": api.keys[BIG]})
    assert named.status_code == 200 and "s-maxage=" in named.headers["Cache-Control"]
    refused = api.client.get(f"{API}/news?festival[]={SMALL}", headers={"X-API-Key": api.keys[BIG]})
    assert refused.status_code == 403
