"""Stored JSON with slots: the parts of a public body that are decided at request time.

A compiled body is the entity's JSON as its output schema makes it. A few values change
with the clock alone (``nextSchedule``, ``candidateRegistrationOpen``) or with the request
(``context``); the compiler stores them as slots, and a request fills each slot with JSON
text. The stored form is the JSON split at the slots, with ``SEPARATOR`` between a part and
the name of the slot that follows it: ``part, name, part, name, part``. JSON text never
holds a raw ``SEPARATOR`` (control characters are always escaped), so splitting is exact.
"""
import re
import uuid

import orjson

SEPARATOR = "\x1e"

# What ``str.encode("ascii", "backslashreplace")`` leaves that JSON does not read: ``\xNN``
# (U+0080..U+00FF) and ``\UNNNNNNNN`` (beyond U+FFFF); an escaped backslash is matched
# first, so the ``x`` of a literal ``\\x41`` is never taken for an escape.
_NOT_JSON_ESCAPE = re.compile(r"(\\\\)|\\x([0-9a-f]{2})|\\U([0-9a-f]{8})")


def dumps(value):
    """Compact JSON text, as every answer is sent: ASCII, every other character as a ``\\u``
    escape (see :func:`ascii_json`)."""
    return ascii_json(orjson.dumps(value).decode())


def ascii_json(text):
    """JSON text with every non-ASCII character written as its ``\\uXXXX`` escape (a pair
    of them beyond U+FFFF): the same JSON to any reader.

    Stored JSON is ASCII so that a request never transcodes it: SQLite hands ASCII text to
    Python and Python encodes it again at the speed of a copy, where a page of results
    with Malayalam names cost about 50 us to decode and 50 us to encode as UTF-8.
    """
    if text.isascii():
        return text
    text = text.encode("ascii", "backslashreplace").decode("ascii")
    if "\\x" in text or "\\U" in text:
        text = _NOT_JSON_ESCAPE.sub(_json_escape, text)
    return text


def _json_escape(match):
    backslashes, latin, astral = match.groups()
    if backslashes:
        return backslashes
    if latin:
        return "\\u00" + latin
    code = int(astral, 16) - 0x10000
    return "\\u%04x\\u%04x" % (0xD800 + (code >> 10), 0xDC00 + (code & 0x3FF))


def make_template(document, slots=()):
    """``document`` (a dict made by an output schema) as stored JSON with ``slots`` cut out.

    Every name in ``slots`` must be a top-level key of ``document``; its value is dropped.
    """
    if not slots:
        return dumps(document)
    # A marker no value can contain: made fresh for every template.
    markers = {name: f"@{uuid.uuid4().hex}" for name in slots}
    text = dumps({key: markers.get(key, value) for key, value in document.items()})
    for name, marker in markers.items():
        head, found, tail = text.partition(f'"{marker}"')
        if not found:
            raise ValueError(f"slot {name!r} is not a key of the document")
        text = f"{head}{SEPARATOR}{name}{SEPARATOR}{tail}"
    return text


def render(template, values):
    """The stored JSON with every slot filled from ``values`` (slot name -> JSON text)."""
    if SEPARATOR not in template:
        return template
    parts = template.split(SEPARATOR)
    for i in range(1, len(parts), 2):
        parts[i] = values[parts[i]]
    return "".join(parts)
