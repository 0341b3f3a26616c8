"""Which of an endpoint's parameters a query parameter name was meant to be, if any.

Unknown parameters are ignored, so that websites may add cache-busters (``_``, ``t``, ``v``,
``cb``); a mistyped one (``hasresults`` for ``hasResults``) would otherwise be ignored too,
and the answer be that of another question. A name is taken for a typo of a parameter when,
compared without regard to case, the two are equal, or within a small Damerau-Levenshtein
distance (the optimal string alignment one: an insertion, a deletion, a substitution or a
swap of two neighbours each count one): 2 when both names have ``LONG`` or more characters,
else 1 (two edits make another word of a short one: ``page`` is no typo of ``pageId``).
Names further from every parameter are the cache-busters' and stay ignored.
``app/views/operations.py`` asks once per name an endpoint is sent, and remembers.
"""

LONG = 6


def allowed_distance(name, parameter):
    """How many edits apart ``name`` may be from ``parameter`` and still be a typo of it."""
    return 2 if min(len(name), len(parameter)) >= LONG else 1


def meant(name, parameters):
    """The parameters ``name`` is a typo of: the ones equal to it ignoring case, else the
    nearest within their allowed distance (several when equally near), in ``parameters``'
    order; empty when it is none of them."""
    folded = name.casefold()
    same = [parameter for parameter in parameters if parameter.casefold() == folded]
    if same:
        return same
    found, best = [], None
    for parameter in parameters:
        limit = allowed_distance(name, parameter)
        distance = edit_distance(folded, parameter.casefold(), limit)
        if distance <= limit:
            if best is None or distance < best:
                found, best = [parameter], distance
            elif distance == best:
                found.append(parameter)
    return found


def edit_distance(a, b, limit):
    """The optimal string alignment distance of ``a`` and ``b``, or ``limit + 1`` when it is
    above ``limit`` (only the cells within ``limit`` of the diagonal are worked out, so a
    long name costs no more than its length times the band)."""
    if abs(len(a) - len(b)) > limit:
        return limit + 1
    far = limit + 1
    before, row = None, list(range(len(b) + 1))
    for i in range(1, len(a) + 1):
        current = [far] * (len(b) + 1)
        if i <= limit:
            current[0] = i
        for j in range(max(1, i - limit), min(len(b), i + limit) + 1):
            cost = a[i - 1] != b[j - 1]
            value = min(row[j] + 1, current[j - 1] + 1, row[j - 1] + cost)
            if before is not None and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                value = min(value, before[j - 2] + 1)
            current[j] = value
        if min(current) > limit:
            return far
        before, row = row, current
    return min(row[len(b)], far)
