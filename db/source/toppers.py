"""Leaderboards ("toppers"): computed from published public results, stored with lastComputedAt.

Which results count for which entity is written down in ``docs/rankings.md``; in short:
only results from :func:`db.source.scopes.public_entry_results` (published, public, of a visible
programme, with a visible participant or, for a team's own entry, a public team), and only
visible teams, sections and candidates ever receive points. Every placeholder is computed,
published or not, so publishing one later needs no recomputation.
"""
import uuid
from collections import Counter, defaultdict
from dataclasses import dataclass, field

from peewee import Alias, ForeignKeyField, UUIDField

from . import models as m
from .scopes import public_candidates, public_entry_results, public_programmes, visible_category, visible_team
from .topper_history import RACE_SIZE, history_for, history_row

DEFAULT_TEAM_LEVEL = 1

# Every entry names every kind of object, null when it does not apply: one shape for all.
EMPTY_DETAILS = {"candidate": None, "team": None, "parent_team": None, "category": None,
                 "section": None, "group": None}


# --- loading: one query per kind of row, whatever the number of placeholders -------------------


@dataclass
class CountedResult:
    """A result that counts: published, public, with at least one visible participant or,
    for a team's own entry (``team_entry``: no candidate, no members), a public team."""

    programme_id: object
    sub_fest_id: object
    registration_id: object
    registration_type: str
    team_id: object
    group_name: str | None
    programme: dict
    points: float
    published_at: object
    participants: list = field(default_factory=list)  # visible sub-fest candidate ids
    team_entry: bool = False


def _str(value):
    return None if value is None else str(value)


def _team_ref(team):
    if team is None:
        return None
    return {key: team[key] for key in ("id", "name", "public_name", "color_code", "level", "logo_url")}


class _Ids:
    """Stored ids as ``uuid.UUID``, each made once (Peewee makes one per value read: most
    of the load's time at scale 20)."""

    def __init__(self):
        self.made = {}

    def __call__(self, value):
        if value is None or isinstance(value, uuid.UUID):
            return value
        found = self.made.get(value)
        if found is None:
            found = self.made[value] = uuid.UUID(value)
        return found


def _dicts(query, ids):
    """The rows of ``query`` as dicts named like Peewee's ``.dicts()`` (its columns are
    fields or aliased fields)."""
    names, convert = [], []
    for node in query._returning:
        f = node.node if isinstance(node, Alias) else node
        names.append(node._alias if isinstance(node, Alias) else f.name)
        convert.append(ids if isinstance(f, (UUIDField, ForeignKeyField)) else f.python_value)
    cursor = query.model._meta.database.execute(query)
    return [dict(zip(names, [c(v) for c, v in zip(convert, row)])) for row in cursor]


class FestivalData:
    """Everything a recomputation needs from one festival, loaded with a fixed number of queries.

    ``sub_fest_ids``: only the candidates, programmes and results of these sub-fests (a
    leaderboard counts the results of its own sub-fest only).
    """

    def __init__(self, festival_id, sub_fest_ids=None):
        self.sub_fest_ids = None if sub_fest_ids is None else list(sub_fest_ids)
        self.ids = _Ids()
        self.candidates = {
            row["id"]: row for row in _dicts(self._of_sub_fests(public_candidates(
                festival_id, m.SubFestCandidate.id, m.SubFestCandidate.chest_no,
                m.SubFestCandidate.avatar_url, m.SubFestCandidate.team, m.SubFestCandidate.category,
                m.Candidate.name, m.Candidate.name_local, m.Candidate.gender), m.SubFestCandidate), self.ids)}
        self.teams = {row["id"]: row for row in _dicts(
            m.Team.select(m.Team.id, m.Team.sub_fest, m.Team.parent, m.Team.level, m.Team.name,
                          m.Team.display_name, m.Team.public_name, m.Team.color_code, m.Team.logo_url)
            .join(m.SubFest)
            .where((m.SubFest.festival == festival_id) & visible_team()), self.ids)}
        self.categories = {row["id"]: row for row in (
            m.Category.select(m.Category.id, m.Category.name, m.Category.name_local)
            .join(m.SubFest)
            .where((m.SubFest.festival == festival_id) & visible_category())
            .dicts())}
        self.sections = {}  # section id -> row
        self.sections_of = defaultdict(set)  # sub-fest candidate id -> visible section ids
        links = _dicts(m.SubFestCandidateSection
                       .select(m.SubFestCandidateSection.sub_fest_candidate, m.Section.id, m.Section.sub_fest,
                               m.Section.key, m.Section.name, m.Section.name_local)
                       .join(m.Section)
                       .join(m.SubFest)
                       .where((m.SubFest.festival == festival_id)
                              & (m.Section.is_active == True) & (m.Section.is_public == True)),  # noqa: E712
                       self.ids)
        for row in links:
            candidate_id = row.pop("sub_fest_candidate")
            self.sections[row["id"]] = row
            if candidate_id in self.candidates:
                self.sections_of[candidate_id].add(row["id"])
        self.programmes = _dicts(self._of_sub_fests(public_programmes(
            festival_id, m.SubFestProgramme.id, m.SubFestProgramme.sub_fest,
            m.SubFestProgramme.category), m.SubFestProgramme), self.ids)
        self.collection_keys = defaultdict(set)  # programme id -> keys of its public collections
        collection_links = (m.SubFestProgrammeCollection
                            .select(m.SubFestProgrammeCollection.sub_fest_programme, m.ProgrammeCollection.key)
                            .join(m.ProgrammeCollection)
                            .where((m.ProgrammeCollection.festival == festival_id)
                                   & (m.ProgrammeCollection.is_public == True)))  # noqa: E712
        for row in _dicts(collection_links, self.ids):
            self.collection_keys[row["sub_fest_programme"]].add(row["key"])
        self.results = self._load_results(festival_id)
        self.results_of = defaultdict(list)  # programme id -> its counted results, in load order
        self.order = {}  # id(result) -> its place in self.results
        for n, result in enumerate(self.results):
            self.results_of[result.programme_id].append(result)
            self.order[id(result)] = n
        # Every placeholder asks for the same few people and teams again and again.
        self._refs = {}

    def _of_sub_fests(self, query, model):
        if self.sub_fest_ids is None:
            return query
        return query.where(model.sub_fest.in_(self.sub_fest_ids))

    def _load_results(self, festival_id):
        rows = _dicts(self._of_sub_fests(public_entry_results(
            festival_id, m.Result.points, m.Result.published_at, m.Result.sub_fest_programme,
            m.SubFestProgramme.sub_fest, m.SubFestProgramme.code, m.Programme.name.alias("programme_name"),
            m.Programme.name_local.alias("programme_name_local"), m.Registration.id.alias("registration_id"),
            m.Registration.type, m.Registration.team, m.Registration.group_name,
            m.Registration.sub_fest_candidate, m.Programme.id.alias("master_id"),
            m.Programme.code.alias("master_code"), m.Programme.program_type, m.Programme.duration_minutes,
            m.SubFestProgramme.status, m.SubFestProgramme.category), m.SubFestProgramme), self.ids)
        members = defaultdict(list)
        member_rows = (m.RegistrationMember
                       .select(m.RegistrationMember.registration, m.RegistrationMember.sub_fest_candidate)
                       .where(m.RegistrationMember.registration.in_(self._of_sub_fests(
                           public_entry_results(festival_id, m.Registration.id), m.SubFestProgramme)))
                       .order_by(m.RegistrationMember.display_order, m.RegistrationMember.id))
        with_members = set()
        for registration_id, candidate_id in ((row["registration"], row["sub_fest_candidate"])
                                              for row in _dicts(member_rows, self.ids)):
            with_members.add(registration_id)
            if candidate_id in self.candidates:
                members[registration_id].append(candidate_id)
        results = []
        for row in rows:
            group = row["type"] == "group"
            # the scope let it through: without a candidate or members, it is a team's own entry
            team_entry = row["sub_fest_candidate"] is None and row["registration_id"] not in with_members
            if team_entry:
                participants = []
            else:
                participants = members[row["registration_id"]] if group else [row["sub_fest_candidate"]]
            leader = self.candidates.get(participants[0]) if participants else None
            team_id = row["team"] or (leader["team"] if leader else None)
            results.append(CountedResult(
                programme_id=row["sub_fest_programme"], sub_fest_id=row["sub_fest"],
                registration_id=row["registration_id"], registration_type=row["type"], team_id=team_id,
                group_name=row["group_name"], points=row["points"] or 0, published_at=row["published_at"],
                participants=participants, team_entry=team_entry,
                programme={
                    "id": _str(row["sub_fest_programme"]), "code": row["code"], "status": row["status"],
                    "category_ref": self.category_ref(row["category"]), "programme": {
                        "id": _str(row["master_id"]), "code": row["master_code"], "name": row["programme_name"],
                        "name_local": row["programme_name_local"], "program_type": row["program_type"],
                        "duration_minutes": row["duration_minutes"]}}))
        return results

    # --- public views of entities, stored in TopperEntry.details ---

    def _ref(self, kind, make, key):
        found = self._refs.get((kind, key))
        if found is None and (kind, key) not in self._refs:
            found = self._refs[(kind, key)] = make(key)
        return found

    def candidate_identity(self, candidate_id):
        return self._ref("candidate", self._candidate_identity, candidate_id)

    def team_ref(self, team_id):
        return self._ref("team", self._team_ref, team_id)

    def _candidate_identity(self, candidate_id):
        row = self.candidates[candidate_id]
        return {"id": _str(row["id"]), "chest_no": row["chest_no"], "name": row["name"],
                "name_local": row["name_local"], "gender": row["gender"], "avatar_url": row["avatar_url"]}

    def _team_ref(self, team_id):
        team = self.teams.get(team_id)
        return {**_team_ref(team), "id": _str(team_id)} if team else None

    def section_ref(self, section_id):
        row = self.sections[section_id]
        return {"id": _str(row["id"]), "key": row["key"], "name": row["name"], "name_local": row["name_local"]}

    def category_ref(self, category_id):
        row = self.categories.get(category_id)
        return {"id": _str(row["id"]), "name": row["name"], "name_local": row["name_local"]} if row else None

    def team_at_level(self, team_id, level):
        """The visible team at ``level`` that ``team_id`` is (or belongs to), else None."""
        team = self.teams.get(team_id)
        while team is not None and team["level"] > level:
            team = self.teams.get(team["parent"])
        return team["id"] if team is not None and team["level"] == level else None


# --- one placeholder ----------------------------------------------------------------------------------


@dataclass
class Total:
    entity_id: object
    name: str
    details: dict
    points: float = 0
    programmes: set = field(default_factory=set)
    last_result_at: object = None

    def add(self, result):
        self.points += result.points
        self.programmes.add(result.programme_id)
        if result.published_at and (self.last_result_at is None or result.published_at > self.last_result_at):
            self.last_result_at = result.published_at


def programmes_in_scope(data, placeholder):
    """Ids of the visible programmes a placeholder's scope covers."""
    programmes = [p for p in data.programmes if p["sub_fest"] == placeholder.sub_fest_id]
    if placeholder.scope_type == "category":
        if placeholder.category_id not in data.categories:
            return set()
        programmes = [p for p in programmes if p["category"] == placeholder.category_id]
    elif placeholder.scope_type == "collection":
        programmes = [p for p in programmes if placeholder.collection_key in data.collection_keys[p["id"]]]
    return {p["id"] for p in programmes}


def _scope_section(data, placeholder):
    """The visible section a section-scoped placeholder restricts participants to (or None)."""
    for section in data.sections.values():
        if section["sub_fest"] == placeholder.sub_fest_id and section["key"] == placeholder.section_key:
            return section["id"]
    return None


def _entities(data, placeholder, result, participants):
    """``(entity id, name, details)`` of every entity ``result`` counts for."""
    kind = placeholder.entity_type
    if result.team_entry and kind != "team":
        return []  # a team's own result counts for its team (and the teams above it) only
    if kind == "candidate":
        if result.registration_type == "group":
            return []
        candidate = data.candidates[participants[0]]
        return [(candidate["id"], candidate["name"], {
            "candidate": data.candidate_identity(candidate["id"]),
            "team": data.team_ref(candidate["team"]),
            "category": data.category_ref(candidate["category"]),
        })]
    if kind == "team":
        team_id = data.team_at_level(result.team_id, placeholder.team_level or DEFAULT_TEAM_LEVEL)
        if team_id is None:
            return []
        team = data.teams[team_id]
        return [(team_id, team["display_name"] or team["name"], {
            "team": data.team_ref(team_id), "parent_team": data.team_ref(team["parent"])})]
    if kind == "section":
        section_ids = set().union(*(data.sections_of[c] for c in participants))
        return [(s, data.sections[s]["name"], {"section": data.section_ref(s)}) for s in section_ids]
    if kind == "group":
        if result.registration_type != "group":
            return []
        team = data.team_ref(result.team_id)
        name = result.group_name or (team["name"] if team else data.candidates[participants[0]]["name"])
        return [(result.registration_id, name, {"group": {
            "id": _str(result.registration_id), "name": name, "programme": result.programme, "team": team,
            "members": [data.candidate_identity(c) for c in result.participants]}})]
    return []


def counted_contributions(data, placeholder):
    """``(scope, counted programme ids, [(result, entity id, name, details)])``: every
    result the board counts and each entity it counts for, in the order of ``data.results``
    (so that fractional points add up the same way every time)."""
    scope = programmes_in_scope(data, placeholder)
    section_id = _scope_section(data, placeholder) if placeholder.scope_type == "section" else None
    counted = set()
    contributions = []
    in_scope = [result for programme_id in scope for result in data.results_of.get(programme_id, ())]
    in_scope.sort(key=lambda result: data.order[id(result)])
    for result in in_scope:
        counted.add(result.programme_id)
        participants = result.participants
        if placeholder.scope_type == "section":
            participants = [c for c in participants if section_id in data.sections_of[c]]
        # A team's own entry has no participants: it counts for its team, except in a
        # section scope, which counts the results of the section's candidates only.
        if not participants and (not result.team_entry or placeholder.scope_type == "section"):
            continue
        for entity_id, name, details in _entities(data, placeholder, result, participants):
            if placeholder.scope_type == "section" and placeholder.entity_type == "section":
                if entity_id != section_id:
                    continue
            contributions.append((result, entity_id, name, details))
    return scope, counted, contributions


def totals_for(data, placeholder):
    """Points per entity of one placeholder, plus ``(programmes counted, programmes in scope)``."""
    scope, counted, contributions = counted_contributions(data, placeholder)
    return list(summed(contributions).values()), len(counted), len(scope)


def summed(contributions):
    """``{entity id: Total}`` of ``contributions`` (``counted_contributions``' third part)."""
    totals = {}
    for result, entity_id, name, details in contributions:
        total = totals.get(entity_id)
        if total is None:
            total = totals[entity_id] = Total(entity_id, name, {**EMPTY_DETAILS, **details})
        total.add(result)
    return totals


def history_of(data, placeholder):
    """How the placeholder's board moved (``db.source.topper_history``): from the results
    that count now, with this module's totals and ranking."""
    _, _, contributions = counted_contributions(data, placeholder)
    final = summed(contributions)
    leaders = rank(list(final.values()))[:RACE_SIZE]
    return history_for(contributions, final, leaders, placeholder.display_top_n, Total)


def rank(totals, top_n=None):
    """Standard competition ranking (1, 2, 2, 4): ``[(rank, tied, total)]``, best first.

    Equal points share a rank and are ordered by name, then id. With ``top_n`` the list
    stops after rank ``top_n`` but keeps everyone tied at the cut-off.
    """
    for total in totals:
        total.points = round(total.points, 6)  # sums of fractional points compare exactly
    ordered = sorted(totals, key=lambda t: (-t.points, t.name.casefold(), str(t.entity_id)))
    sharing = Counter(t.points for t in ordered)
    ranked = []
    current = 0
    for index, total in enumerate(ordered):
        if index == 0 or total.points != ordered[index - 1].points:
            current = index + 1
        if top_n and current > top_n:
            break
        ranked.append((current, sharing[total.points] > 1, total))
    return ranked


# --- storing ----------------------------------------------------------------------------------------


def recompute_toppers(festival, now=None, sub_fest_ids=None):
    """Recompute and store every topper placeholder of ``festival`` (of the sub-fests
    ``sub_fest_ids`` only, when given: a change elsewhere cannot move them); return how many.

    Run it inside the transaction that changed the results, so readers never see a
    leaderboard that disagrees with the results next to it.
    """
    now = now or m.utcnow()
    query = (m.TopperPlaceholder
             .select()
             .join(m.SubFest)
             .where(m.SubFest.festival == festival.id)
             .order_by(m.TopperPlaceholder.id))
    if sub_fest_ids is not None:
        query = query.where(m.TopperPlaceholder.sub_fest.in_(list(sub_fest_ids)))
    placeholders = list(query)
    if not placeholders:
        return 0
    data = FestivalData(festival.id, sub_fest_ids)
    if placeholders:
        m.TopperEntry.delete().where(m.TopperEntry.placeholder.in_([p.id for p in placeholders])).execute()
    rows, histories = [], []
    for placeholder in placeholders:
        digest, body = history_row(history_of(data, placeholder))
        histories.append({"placeholder": placeholder.id, "digest": digest, "body": body})
        totals, counted, in_scope = totals_for(data, placeholder)
        for position, tied, total in rank(totals, placeholder.display_top_n):
            rows.append({
                "placeholder": placeholder.id, "rank": position, "tied": tied, "points": total.points,
                "programme_count": len(total.programmes), "entity_type": placeholder.entity_type,
                "entity_id": total.entity_id, "name": total.name, "details": total.details,
                "last_result_at": total.last_result_at,
            })
        (m.TopperPlaceholder
         .update(last_computed_at=now, programmes_counted=counted, programmes_in_scope=in_scope)
         .where(m.TopperPlaceholder.id == placeholder.id)
         .execute())
    for start in range(0, len(rows), 200):
        m.TopperEntry.insert_many(rows[start:start + 200]).execute()
    m.TopperHistory.delete().where(m.TopperHistory.placeholder.in_([p.id for p in placeholders])).execute()
    for start in range(0, len(histories), 50):
        m.TopperHistory.insert_many(histories[start:start + 50]).execute()
    return len(placeholders)
