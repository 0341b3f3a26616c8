"""API keys: random tokens with a recognisable prefix; only their SHA-256 is stored."""
import functools
import hashlib
import secrets

from .. import clock
from .models import ApiKey, Festival

KEY_PREFIX = "fds_"


def hash_key(plain):
    return hashlib.sha256(plain.encode("utf-8")).hexdigest()


def create_key(festival, label=None):
    """Create a key for ``festival``; return ``(ApiKey, plain key)``. The plain key is not stored."""
    plain = KEY_PREFIX + secrets.token_urlsafe(32)
    key = ApiKey.create(festival=festival, label=label, prefix=plain[:10], key_hash=hash_key(plain))
    return key, plain


def find_active_key(plain):
    """Return ``(key id, festival)`` for a valid, unrevoked key, else None."""
    return find_active_key_by_hash(hash_key(plain))


def find_active_key_by_hash(key_hash):
    """:func:`find_active_key` for a key already hashed with :func:`hash_key`.

    Every request whose key is not in the key cache reads this, so its statement is built
    once per database kind (:func:`_key_statement`), not by Peewee on every call (which cost
    more than the rest of a cached request)."""
    db = ApiKey._meta.database
    row = db.execute_sql(_key_statement(db.param), (key_hash,)).fetchone()
    if row is None:
        return None
    key_id, revoked_at, *festival = row
    if revoked_at is not None:
        return None
    festival = Festival(**{f.name: f.python_value(value) for f, value in zip(Festival._meta.sorted_fields, festival)})
    if not festival.is_active:
        return None
    return ApiKey.id.python_value(key_id), festival


@functools.lru_cache(maxsize=None)
def _key_statement(param):
    """The SQL of :func:`find_active_key_by_hash` for a database whose parameter marker is
    ``param``: the key's id and revocation, then every column of its festival."""
    query = (ApiKey.select(ApiKey.id, ApiKey.revoked_at, *Festival._meta.sorted_fields)
             .join(Festival).where(ApiKey.key_hash == ""))
    return query.sql()[0]


def list_keys(festival=None):
    query = ApiKey.select(ApiKey, Festival).join(Festival).order_by(Festival.slug, ApiKey.created_at)
    if festival is not None:
        query = query.where(ApiKey.festival == festival)
    return list(query)


def revoke_key(key_id):
    """Revoke a key; return False when there is no such key."""
    return bool(ApiKey.update(revoked_at=clock.utcnow())
                .where((ApiKey.id == key_id) & ApiKey.revoked_at.is_null())
                .execute()) or ApiKey.select().where(ApiKey.id == key_id).exists()


def renew_key(festival, label, keep=lambda key: False):
    """Revoke ``festival``'s active keys labelled ``label`` (or ``label (…)``) but those
    ``keep(key)`` holds on to, then create one labelled ``label``; ``(ApiKey, plain key)``.

    Only a key's hash is stored, so an earlier key cannot be shown again: a command that
    prints a key on every run (``festival-api demo``) renews it.
    """
    base = label.split(" (", 1)[0]
    active = (ApiKey.select()
              .where((ApiKey.festival == festival) & ApiKey.revoked_at.is_null()
                     & ((ApiKey.label == base) | ApiKey.label.startswith(f"{base} ("))))
    stale = [key.id for key in active if not keep(key)]
    if stale:
        ApiKey.update(revoked_at=clock.utcnow()).where(ApiKey.id.in_(stale)).execute()
    return create_key(festival, label=label)
