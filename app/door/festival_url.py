"""URLs that name their festival: ``/public-api/v1/programmes?festival=kalolsavam-2026&...``.

The API key decides the festival (docs/api-conventions.md); a request may also name it in the
URL, with the ``festival`` query parameter (the festival's slug, case ignored). The front door
checks the name against the key: a key of another festival is refused ``403``, the same
answer whether the named festival exists or not. An answer to such a URL is the same for
every key of its festival, so a shared cache that keys on the URL alone (a CDN) can keep it
and never hand one festival's answer to another's site: it is sent ``public`` with
``s-maxage`` and the stale directives, and without ``X-API-Key`` in ``Vary``
(``app/door/headers.py``). Every endpoint takes the parameter; its views never see it.
"""

PARAMETER = "festival"

REPEATED_MESSAGE = "Send this parameter once."


NAMES = (PARAMETER, PARAMETER + "[]")  # a bracket key counts as the name, as for every parameter


def named_festival(pairs):
    """The values of ``festival`` in a query's ``(name, value)`` pairs: ``()`` when it names none.
    A typo of the name (``Festival``, ``festivals``) is a ``400`` of the endpoint's parameters
    (``app/views/typos.py``), never a URL answered as if it named nothing."""
    return tuple(value for name, value in pairs if name in NAMES)


def refusal_message(named, festival):
    """None when ``named`` (the parameter's one value) names ``festival`` (the key's), else the
    ``403``'s message. It names the key's own festival, which any answer to the key shows, and
    says nothing of the one named."""
    if named.strip().lower() == festival.slug.lower():
        return None
    return (f"This API key belongs to another festival than the URL names (festival=); "
            f"its URLs name festival={festival.slug}.")
