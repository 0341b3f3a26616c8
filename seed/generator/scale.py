"""A sub-fest N times the size of its specification, with every number, code and name unique."""
from collections import defaultdict
from dataclasses import replace


def copies(items, scale, rename):
    """``items``, then ``scale - 1`` renamed copies of them: ``rename(item, k)`` for k = 2..scale."""
    return list(items) + [rename(item, k) for k in range(2, scale + 1) for item in items]


def numbered(text, k):
    return f"{text} ({k})" if text else text


def programme_statuses(data):
    """The statuses of each sub-fest's programme instances in a fixture document, by sub-fest slug."""
    slugs = {row["id"]: row["slug"] for row in data["subFests"]}
    statuses = defaultdict(list)
    for row in data["subFestProgrammes"]:
        statuses[slugs[row["sub_fest"]]].append(row["status"])
    return statuses


def scaled(spec, scale, statuses):
    """``spec`` with ``scale`` times the candidates, programmes and schools.

    Each copy of the programme list takes ``statuses``, those of the unscaled sub-fest, so
    the mix of statuses (and with it of results) is the same at every scale. Chest numbers
    start at ``(chest_start - 1) * scale + 1``: the sub-fests' ranges (1001, 2001, ... apart
    at scale 1) stay apart as long as a sub-fest has fewer entries than that gap.
    """
    if scale == 1:
        return spec
    instances = sum(len(p.categories) for p in spec.programmes)
    return replace(
        spec,
        chest_start=(spec.chest_start - 1) * scale + 1,
        candidates=spec.candidates * scale,
        shared_candidates=spec.shared_candidates * scale,
        programmes=copies(spec.programmes, scale, lambda p, k: replace(
            p, name=numbered(p.name, k), name_local=numbered(p.name_local, k))),
        statuses=tuple(statuses[:instances]) * scale,
        teams=[replace(team, children=tuple(copies(team.children, scale, numbered))) for team in spec.teams],
    )
