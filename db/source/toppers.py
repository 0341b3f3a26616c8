"""What leaderboards count, loaded: a festival's visible candidates, teams, categories,
sections, programmes and counted results (:class:`FestivalData`), with the public details of
the entities a board shows. The boards are computed from it by :mod:`db.compiler.leaderboards`.

Only results from :func:`db.source.visibility.public_entry_results` (published, public, of a
visible programme, with a visible participant or, for a team's own entry, a public team)
are loaded, and only visible teams, sections and candidates (``docs/rankings.md``).
"""
import re
import uuid
from collections import defaultdict
from dataclasses import dataclass, field

from peewee import ForeignKeyField, UUIDField

from ..peewee_compat import selected_columns
from . import models as m
from .visibility import (public_candidates, public_entry_results, public_programmes, visible_category, visible_section,
                         visible_team)


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
    # what a board's rule may rank by (db.source.board_rule)
    result_id: object = None
    position: int | None = None
    grade: str | None = None
    position_points: float = 0
    grade_points: float = 0

    @property
    def kind(self):
        """``individual``, ``group`` or ``team_entry`` (a board's ``counts`` names them)."""
        if self.team_entry:
            return "team_entry"
        return "group" if self.registration_type == "group" else "individual"


# A person's entry id on a ``person`` board: derived from the person and the sub-fest.
PERSON_NAMESPACE = uuid.UUID("0f6b8d2a-3c4e-4b7a-9e1f-5a2d7c9b4e60")


def _natural(text):
    """A chest number's sort key: its runs of digits as numbers ("9" before "10")."""
    return [(0, int(part), "") if part.isdigit() else (1, 0, part.casefold())
            for part in re.findall(r"\d+|\D+", text or "")]


def id_text(value):
    """An id as the public JSON writes it (None stays None)."""
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
    for name, f in selected_columns(query):
        names.append(name)
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
                m.SubFestCandidate.sub_fest, m.SubFestCandidate.candidate.alias("person"), m.Candidate.name, m.Candidate.name_local, m.Candidate.gender), m.SubFestCandidate), self.ids)}
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
        for row in self._sections_linked(festival_id, m.SubFestCandidateSection.sub_fest_candidate):
            candidate_id = row.pop("sub_fest_candidate")
            self.sections[row["id"]] = row
            if candidate_id in self.candidates:
                self.sections_of[candidate_id].add(row["id"])
        self.section_teams = defaultdict(set)  # section id -> ids of the visible teams it lists
        for row in self._sections_linked(festival_id, m.SectionTeam.team):
            team_id = row.pop("team")
            self.sections.setdefault(row["id"], row)
            if team_id in self.teams:
                self.section_teams[row["id"]].add(team_id)
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
        self._chest_numbers = None  # (person, sub-fest) -> their visible sub-fest candidates

    def _of_sub_fests(self, query, model):
        if self.sub_fest_ids is None:
            return query
        return query.where(model.sub_fest.in_(self.sub_fest_ids))

    def _sections_linked(self, festival_id, link):
        """The festival's visible sections that ``link`` (a link table's column) ties to its
        rows: one dict a link, the section's columns and the link's."""
        return _dicts(link.model
                      .select(link, m.Section.id, m.Section.sub_fest, m.Section.key, m.Section.name,
                              m.Section.name_local)
                      .join(m.Section)
                      .join(m.SubFest)
                      .where((m.SubFest.festival == festival_id) & visible_section()),
                      self.ids)

    def _load_results(self, festival_id):
        rows = _dicts(self._of_sub_fests(public_entry_results(
            festival_id, m.Result.id.alias("result_id"), m.Result.points, m.Result.position, m.Result.grade,
            m.Result.position_points, m.Result.grade_points, m.Result.published_at, m.Result.sub_fest_programme,
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
            # the privacy rules let it through: without a candidate or members, it is a team's own entry
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
                participants=participants, team_entry=team_entry, result_id=row["result_id"],
                position=row["position"], grade=row["grade"], position_points=float(row["position_points"] or 0),
                grade_points=float(row["grade_points"] or 0),
                programme={
                    "id": id_text(row["sub_fest_programme"]), "code": row["code"], "status": row["status"],
                    "category_ref": self.category_ref(row["category"]), "programme": {
                        "id": id_text(row["master_id"]), "code": row["master_code"], "name": row["programme_name"],
                        "name_local": row["programme_name_local"], "program_type": row["program_type"],
                        "duration_minutes": row["duration_minutes"]}}))
        return results

    # --- public details of entities, stored in TopperEntry.details ---

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
        return {"id": id_text(row["id"]), "chest_no": row["chest_no"], "name": row["name"],
                "name_local": row["name_local"], "gender": row["gender"], "avatar_url": row["avatar_url"]}

    def _team_ref(self, team_id):
        team = self.teams.get(team_id)
        return {**_team_ref(team), "id": id_text(team_id)} if team else None

    def person_of(self, candidate_id):
        """``(entity id, name, details)`` of the person a sub-fest candidate is, in its
        sub-fest: public fields only; the id is derived, never the person's own row's."""
        row = self.candidates[candidate_id]
        return self._ref("person", self._person, (row["person"], row["sub_fest"]))

    def _person(self, key):
        if self._chest_numbers is None:
            self._chest_numbers = defaultdict(list)
            for row in self.candidates.values():
                self._chest_numbers[(row["person"], row["sub_fest"])].append(row)
        rows = sorted(self._chest_numbers[key], key=lambda row: _natural(row["chest_no"]))
        first = rows[0]
        teams = {row["team"] for row in rows}
        categories = {row["category"] for row in rows}
        team = self.team_ref(teams.pop()) if len(teams) == 1 else None
        category = self.category_ref(categories.pop()) if len(categories) == 1 else None
        entity_id = uuid.uuid5(PERSON_NAMESPACE, f"{key[0]}/{key[1]}")
        return entity_id, first["name"], {
            "person": {"name": first["name"], "name_local": first["name_local"], "gender": first["gender"],
                       "chest_nos": [row["chest_no"] for row in rows]},
            "team": team, "category": category}

    def section_ref(self, section_id):
        row = self.sections[section_id]
        return {"id": id_text(row["id"]), "key": row["key"], "name": row["name"], "name_local": row["name_local"]}

    def category_ref(self, category_id):
        row = self.categories.get(category_id)
        return {"id": id_text(row["id"]), "name": row["name"], "name_local": row["name_local"]} if row else None

    def team_at_level(self, team_id, level):
        """The visible team at ``level`` that ``team_id`` is (or belongs to), else None."""
        team = self.teams.get(team_id)
        while team is not None and team["level"] > level:
            team = self.teams.get(team["parent"])
        return team["id"] if team is not None and team["level"] == level else None
