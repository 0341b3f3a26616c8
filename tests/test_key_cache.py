"""The key cache (app/door/auth.py): a lookup is reused for its seconds, then asked again; a full
cache makes room."""
import app.door.auth
from app.door.auth import KeyCache


class Clock:
    def __init__(self):
        self.now = 100.0

    def __call__(self):
        return self.now


def counting_lookups(monkeypatch):
    asked = []

    def find(digest):
        asked.append(digest)
        return None if digest.startswith("0") else ("key-id", "festival")

    monkeypatch.setattr(app.door.auth, "find_active_key_by_hash", find)
    return asked


def test_a_lookup_is_reused_for_its_seconds_then_asked_again(monkeypatch):
    asked, clock = counting_lookups(monkeypatch), Clock()
    cache = KeyCache(5, timer=clock)
    digest, found = cache.lookup("fds_a")
    assert found == ("key-id", "festival") and asked == [digest]
    clock.now += 4.9
    assert cache.lookup("fds_a") == (digest, found) and asked == [digest]
    clock.now += 0.2  # a revoked key stops working once its lookup expired
    cache.lookup("fds_a")
    assert asked == [digest, digest]


def test_zero_seconds_asks_every_time(monkeypatch):
    asked = counting_lookups(monkeypatch)
    cache = KeyCache(0)
    cache.lookup("fds_a")
    cache.lookup("fds_a")
    assert len(asked) == 2


def test_a_full_cache_drops_what_expired_first_and_else_everything(monkeypatch):
    asked, clock = counting_lookups(monkeypatch), Clock()
    cache = KeyCache(5, size=3, timer=clock)
    for key in ("fds_a", "fds_b"):
        cache.lookup(key)
    clock.now += 6  # a and b expired
    cache.lookup("fds_c")
    cache.lookup("fds_d")  # full: a and b go, c stays
    assert set(cache._found) == {app.door.auth.hash_key(k) for k in ("fds_c", "fds_d")}
    cache.lookup("fds_e")
    cache.lookup("fds_f")  # full of live entries: all go, f is kept
    assert set(cache._found) == {app.door.auth.hash_key("fds_f")}
    before = len(asked)
    cache.lookup("fds_f")
    assert len(asked) == before
