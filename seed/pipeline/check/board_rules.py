"""Checks of the leaderboards' rules (``topperPlaceholders``: ``counts``, ``eligible_if``,
``tie_break``, ...) and of the teams a section lists, in the sheet's terms.

The shape of each field (a list, a known word) is the JSON Schema's; here is what it cannot
say: a metric's name, a collection that exists, a count the board's entity can have, a
listed team of the section's own sub-fest (``docs/rankings.md``, "A board's rule").
"""
from db.source.board_rule import APPLICABLE, METRICS, is_metric

_METRIC_NAMES = ", ".join([*METRICS[:3], "grade:X (e.g. grade:A)", *METRICS[3:]])


def check_board_rules(state, problems):
    collections = {row.get("key") for row in state.rows["programmeCollections"].values()}
    for row_id, row in state.rows["topperPlaceholders"].items():
        path = state.path("topperPlaceholders", row_id)
        entity = row.get("entity_type") or "candidate"
        counts = row.get("counts")
        if isinstance(counts, list):
            wrong = [kind for kind in counts if isinstance(kind, str) and kind not in APPLICABLE.get(entity, ())]
            if wrong:
                problems.append((f"{path}.counts", f"a {entity} board cannot count {', '.join(wrong)}: it counts "
                                                   f"{' or '.join(APPLICABLE.get(entity, ()))} results"))
        seen = set()
        for n, name in enumerate(row.get("tie_break") or ()):
            if not is_metric(name):
                problems.append((f"{path}.tie_break[{n}]", f"unknown metric {name!r}: one of {_METRIC_NAMES}"))
            elif name.casefold() in seen:
                problems.append((f"{path}.tie_break[{n}]", f"metric {name!r} is named twice"))
            seen.add(str(name).casefold())
        for n, requirement in enumerate(row.get("eligible_if") or ()):
            key = requirement.get("collection") if isinstance(requirement, dict) else None
            if isinstance(key, str) and key not in collections:
                problems.append((f"{path}.eligible_if[{n}]", f"no programme collection with key {key!r} "
                                                             f"(programmeCollections.key)"))
    teams = state.rows["teams"]
    for row_id, links in state.links["sections"].items():
        section = state.rows["sections"].get(row_id, {})
        for n, team_id in enumerate(links.get("teams", ())):
            team = teams.get(team_id)
            if team is not None and team.get("sub_fest") != section.get("sub_fest"):
                problems.append((f"{state.path('sections', row_id)}.teams[{n}]",
                                 f"team {team.get('name')!r} is of another sub-fest than section "
                                 f"{section.get('key')!r}"))
