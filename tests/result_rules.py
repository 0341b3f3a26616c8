"""Which entries and results the public sees, restated over the fixture JSON.

Written independently of ``db/source/visibility.py`` (like ``fixture_rules.py``): the tests compare
the API's answers with what these rules derive from the fixture.
"""
from fixture_rules import flag, visible_programme_ids


def visible_candidate_ids(data):
    """Sub-fest candidates that are active and public, of a person who is too, in a visible sub-fest."""
    people = {c["id"] for c in data["candidates"] if flag(c, "is_active") and flag(c, "is_public")}
    sub_fests = {s["id"] for s in data["subFests"] if flag(s, "is_active") and flag(s, "is_public")}
    return {c["id"] for c in data["subFestCandidates"]
            if flag(c, "is_active") and flag(c, "is_public") and c["candidate"] in people
            and c["sub_fest"] in sub_fests}


def participants(registration, visible):
    """The visible people who took part: the candidate, or a group's members (none, for a
    team's own entry)."""
    if registration.get("type", "individual") == "group":
        return [c for c in registration.get("members", []) if c in visible]
    candidate = registration.get("sub_fest_candidate")
    return [candidate] if candidate in visible else []


def is_team_entry(registration):
    """A team's own entry: a team, and neither a candidate nor members."""
    return bool(registration.get("team") and not registration.get("sub_fest_candidate")
                and not registration.get("members"))


def public_team_ids(data):
    """Active public teams of visible sub-fests (a hidden parent hides no team)."""
    sub_fests = {s["id"] for s in data["subFests"] if flag(s, "is_active") and flag(s, "is_public")}
    return {t["id"] for t in data.get("teams", [])
            if flag(t, "is_active") and flag(t, "is_public") and t["sub_fest"] in sub_fests}


def visible_registrations(data):
    """``{id: registration}`` of active entries in visible programmes with a visible participant,
    or, for a team's own entry, a public team."""
    visible = visible_candidate_ids(data)
    teams = public_team_ids(data)
    programmes = visible_programme_ids(data)
    return {r["id"]: r for r in data["registrations"]
            if flag(r, "is_active") and r["sub_fest_programme"] in programmes
            and (r["team"] in teams if is_team_entry(r) else participants(r, visible))}


def visible_results(data):
    """``{id: result}`` of published public results of visible entries."""
    registrations = visible_registrations(data)
    return {r["id"]: r for r in data["results"]
            if flag(r, "is_published", False) and flag(r, "is_public") and r["registration"] in registrations}


def took_part(registration, candidate_id):
    if registration.get("type", "individual") == "group":
        return candidate_id in registration.get("members", [])
    return registration.get("sub_fest_candidate") == candidate_id
