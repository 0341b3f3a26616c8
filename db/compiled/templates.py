"""Stored JSON with slots: the parts of a public body that are decided at request time.

A compiled body is the entity's JSON as its output schema makes it. A few values change
with the clock alone (``nextSchedule``, ``candidateRegistrationOpen``) or with the request
(``context``); the compiler stores them as slots, and a request fills each slot with JSON
text. The stored form is the JSON split at the slots, with ``SEPARATOR`` between a part and
the name of the slot that follows it: ``part, name, part, name, part``. JSON text never
holds a raw ``SEPARATOR`` (control characters are always escaped), so splitting is exact.
"""
import uuid

import orjson

SEPARATOR = "\x1e"


def dumps(value):
    """Compact JSON text, as every answer is sent."""
    return orjson.dumps(value).decode()


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
