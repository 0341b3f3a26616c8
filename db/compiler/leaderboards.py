"""Leaderboards ("toppers"): computed from published public results, stored with lastComputedAt.

Which results count for which entity is written down in ``docs/rankings.md``; in short:
only the results :class:`db.source.toppers.FestivalData` loads (published, public, of a
visible programme, with a visible participant or, for a team's own entry, a public team)
count, and only visible teams, sections and candidates ever receive points. Every
placeholder is computed, published or not, so publishing one later needs no recomputation.
Each board's history is computed with it (:mod:`db.compiler.topper_history`).
"""
import hashlib
from collections import Counter
from dataclasses import dataclass, field

import orjson

from .. import clock
from ..bulk import insert_rows
from ..compiled.tables import PublicPlaceholder, PublicTopperHistory
from ..source import models as m
from ..source.toppers import FestivalData, id_text
from ..source.board_rule import Rule, metric_key, metric_value, rule_of
from .topper_history import RACE_SIZE, history_for, history_row

DEFAULT_TEAM_LEVEL = 1

# Every entry names every kind of object, null when it does not apply: one shape for all.
EMPTY_DETAILS = {"candidate": None, "team": None, "parent_team": None, "category": None,
                 "section": None, "group": None}


# --- one placeholder ----------------------------------------------------------------------------------


@dataclass
class Total:
    entity_id: object
    name: str
    details: dict
    points: float = 0
    programmes: set = field(default_factory=set)
    last_result_at: object = None
    rule: Rule = None  # None: today's rule (every counted result adds its points)
    results: list = field(default_factory=list)  # the counted results, in the order added
    best: dict = None  # with best_per_programme: programme id -> its one counted result

    def add(self, result):
        if self.rule is not None and self.rule.best_per_programme:
            self._add_best(result)
            return
        self.points += result.points if self.rule is None else self.rule.value(result)
        self.programmes.add(result.programme_id)
        self.results.append(result)
        if result.published_at and (self.last_result_at is None or result.published_at > self.last_result_at):
            self.last_result_at = result.published_at

    def _add_best(self, result):
        if self.best is None:
            self.best = {}
        current = self.best.get(result.programme_id)
        if current is not None and not _better(self.rule, result, current):
            return
        self.best[result.programme_id] = result
        self.results = list(self.best.values())
        self.points = 0
        for counted in self.results:
            self.points += self.rule.value(counted)
        self.programmes = set(self.best)
        moments = [r.published_at for r in self.results if r.published_at]
        self.last_result_at = max(moments) if moments else None

    def metrics(self):
        """The values of the board's tie-break metrics, in its order."""
        if self.rule is None:
            return ()
        return tuple(metric_value(name, self.results, self.rule) for name in self.rule.tie_break)

    def metric_pairs(self):
        """``[[metric, value], ...]`` as stored with an entry; None without tie-break metrics."""
        if self.rule is None or not self.rule.tie_break:
            return None
        return [[name, value] for name, value in zip(self.rule.tie_break, self.metrics())]

    def sort_key(self):
        """The board's order: points down, then each tie-break metric, then name, then id."""
        points = -round(self.points, 6)
        if self.rule is None or not self.rule.tie_break:
            return (points, self.name.casefold(), str(self.entity_id))
        metrics = tuple(metric_key(name, value) for name, value in zip(self.rule.tie_break, self.metrics()))
        return (points, *metrics, self.name.casefold(), str(self.entity_id))


def _better(rule, result, other):
    """True when ``result`` is a better one of its entity in its programme than ``other``:
    more points (under ``points_from``), then the better position, then the lower id."""
    def key(r):
        return (-round(rule.value(r), 6), r.position if r.position is not None else float("inf"), str(r.result_id))
    return key(result) < key(other)


def eligible(data, rule, total):
    """True when ``total``'s counted results meet every ``eligible_if`` requirement: a result
    in a programme of the collection with a position no worse than the one named."""
    for key, best in rule.eligible_if:
        if not any(r.position is not None and r.position <= best and key in data.collection_keys[r.programme_id]
                   for r in total.results):
            return False
    return True


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


def _listed_team(data, placeholder, section_id, result):
    """True when the section lists the result's team, or the team above it at the board's level."""
    listed = data.section_teams.get(section_id)
    if not listed or result.team_id is None:
        return False
    if result.team_id in listed:
        return True
    return data.team_at_level(result.team_id, placeholder.team_level or DEFAULT_TEAM_LEVEL) in listed


def _entities(data, placeholder, result, participants, section_id=None):
    """``(entity id, name, details)`` of every entity ``result`` counts for (``section_id``:
    the section a section-scoped board counts the result for by its team, else None)."""
    kind = placeholder.entity_type
    if result.team_entry and kind not in ("team", "section"):
        return []  # a team's own result counts for its team (and the teams above it) only
    if kind == "candidate":
        out = []
        for candidate_id in participants:
            candidate = data.candidates[candidate_id]
            out.append((candidate["id"], candidate["name"], {
                "candidate": data.candidate_identity(candidate["id"]),
                "team": data.team_ref(candidate["team"]),
                "category": data.category_ref(candidate["category"]),
            }))
        return out
    if kind == "person":
        people = {}
        for candidate_id in participants:
            entity_id, name, details = data.person_of(candidate_id)
            people.setdefault(entity_id, (entity_id, name, details))
        return list(people.values())
    if kind == "team":
        team_id = data.team_at_level(result.team_id, placeholder.team_level or DEFAULT_TEAM_LEVEL)
        if team_id is None:
            return []
        team = data.teams[team_id]
        return [(team_id, team["display_name"] or team["name"], {
            "team": data.team_ref(team_id), "parent_team": data.team_ref(team["parent"])})]
    if kind == "section":
        section_ids = set().union(*(data.sections_of[c] for c in participants))
        if section_id is not None:
            section_ids.add(section_id)
        return [(s, data.sections[s]["name"], {"section": data.section_ref(s)}) for s in section_ids]
    if kind == "group":
        if result.registration_type != "group":
            return []
        team = data.team_ref(result.team_id)
        # named after its first member counted here (of the section, on a section scope)
        first = (participants or result.participants or [None])[0]
        name = result.group_name or (team["name"] if team else data.candidates[first]["name"] if first else "")
        return [(result.registration_id, name, {"group": {
            "id": id_text(result.registration_id), "name": name, "programme": result.programme, "team": team,
            "members": [data.candidate_identity(c) for c in result.participants]}})]
    return []


def counted_contributions(data, placeholder, rule=None):
    """``(scope, counted programme ids, [(result, entity id, name, details)])``: every
    result the board counts and each entity it counts for, in the order of ``data.results``
    (so that fractional points add up the same way every time)."""
    rule = rule or rule_of(placeholder)
    scope = programmes_in_scope(data, placeholder)
    section_id = _scope_section(data, placeholder) if placeholder.scope_type == "section" else None
    counted = set()
    contributions = []
    in_scope = [result for programme_id in scope for result in data.results_of.get(programme_id, ())]
    in_scope.sort(key=lambda result: data.order[id(result)])
    for result in in_scope:
        counted.add(result.programme_id)
        if result.kind not in rule.counts:
            continue
        participants = result.participants
        by_team = None
        if placeholder.scope_type == "section":
            participants = [c for c in participants if section_id in data.sections_of[c]]
            # A section that lists teams counts their own entries and the group entries
            # registered for them; else a section scope counts its candidates' results only.
            if not participants and result.kind != "individual" and _listed_team(data, placeholder, section_id,
                                                                                  result):
                by_team = section_id
            if not participants and by_team is None:
                continue
        elif not participants and not result.team_entry:
            continue
        for entity_id, name, details in _entities(data, placeholder, result, participants, by_team):
            if placeholder.scope_type == "section" and placeholder.entity_type == "section":
                if entity_id != section_id:
                    continue
            contributions.append((result, entity_id, name, details))
    return scope, counted, contributions


def totals_for(data, placeholder):
    """Points per entity of one placeholder, plus ``(programmes counted, programmes in scope)``:
    the entities its rule lets win."""
    rule = rule_of(placeholder)
    scope, counted, contributions = counted_contributions(data, placeholder, rule)
    totals = [t for t in summed(contributions, rule).values() if eligible(data, rule, t)]
    return totals, len(counted), len(scope)


def summed(contributions, rule=None):
    """``{entity id: Total}`` of ``contributions`` (``counted_contributions``' third part)."""
    totals = {}
    rule = _kept(rule)
    for result, entity_id, name, details in contributions:
        total = totals.get(entity_id)
        if total is None:
            total = totals[entity_id] = Total(entity_id, name, {**EMPTY_DETAILS, **details}, rule=rule)
        total.add(result)
    return totals


def _kept(rule):
    """``rule`` when it changes how totals add up or rank, else None (today's rule: the
    totals and the history are exactly those of a board without one)."""
    if rule is None or rule == Rule(counts=rule.counts):
        return None
    return rule


def history_of(data, placeholder):
    """How the placeholder's board moved (``db.compiler.topper_history``): from the results
    that count now, with this module's totals and ranking."""
    rule = rule_of(placeholder)
    _, _, contributions = counted_contributions(data, placeholder, rule)
    final = {i: t for i, t in summed(contributions, rule).items() if eligible(data, rule, t)}
    leaders = rank(list(final.values()), rule=rule)[:RACE_SIZE]
    kept = _kept(rule)

    def new_total(entity_id, name, details):
        return Total(entity_id, name, details, rule=kept)

    return history_for(contributions, final, leaders, placeholder.display_top_n, new_total, rule=kept,
                       eligible=(lambda total: eligible(data, rule, total)) if rule.eligible_if else None)


def rank(totals, top_n=None, rule=None):
    """``[(rank, tied, total)]``, best first: standard competition ranking (1, 2, 2, 4), or
    dense (1, 2, 2, 3) under a rule with ``rank_style`` dense.

    Entries are ordered by points, then the rule's tie-break metrics; equal on all of them
    they share a rank and are ordered by name, then id. With ``top_n`` the list stops after
    rank ``top_n`` but keeps everyone tied at the cut-off.
    """
    for total in totals:
        total.points = round(total.points, 6)  # sums of fractional points compare exactly
    ordered = sorted(totals, key=lambda t: t.sort_key())
    width = 1 + (len(rule.tie_break) if rule is not None else 0)
    groups = [t.sort_key()[:width] for t in ordered]
    sharing = Counter(groups)
    dense = rule is not None and rule.rank_style == "dense"
    ranked = []
    current = distinct = 0
    for index, total in enumerate(ordered):
        if index == 0 or groups[index] != groups[index - 1]:
            current = index + 1
            distinct += 1
        place = distinct if dense else current
        if top_n and place > top_n:
            break
        ranked.append((place, sharing[groups[index]] > 1, total))
    return ranked


# --- storing ----------------------------------------------------------------------------------------


def recompute_toppers(festival, now=None, sub_fest_ids=None):
    """Recompute and store every topper placeholder of ``festival`` (of the sub-fests
    ``sub_fest_ids`` only, when given: a change elsewhere cannot move them); return how many.

    Run it inside the transaction that changed the results, so readers never see a
    leaderboard that disagrees with the results next to it.
    """
    now = now or clock.utcnow()
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
    stored = stored_boards([p.id for p in placeholders])
    compiled = compiled_boards(festival.id) if any(p.id not in stored for p in placeholders) else {}
    m.TopperEntry.delete().where(m.TopperEntry.placeholder.in_([p.id for p in placeholders])).execute()
    rows, histories = [], []
    for placeholder in placeholders:
        digest, body = history_row(history_of(data, placeholder))
        histories.append({"placeholder": placeholder.id, "digest": digest, "body": body})
        totals, counted, in_scope = totals_for(data, placeholder)
        rule = rule_of(placeholder)
        entries = []
        for position, tied, total in rank(totals, placeholder.display_top_n, rule):
            entries.append({
                "placeholder": placeholder.id, "rank": position, "tied": tied, "points": total.points,
                "programme_count": len(total.programmes), "entity_type": placeholder.entity_type,
                "entity_id": total.entity_id, "name": total.name, "details": total.details,
                "last_result_at": total.last_result_at, "metrics": total.metric_pairs(),
            })
        rows.extend(entries)
        # Its time is when its entries last changed: a board that came out as it was keeps
        # its time, so its answers (and their ETags) stay the same across imports.
        if placeholder.last_computed_at is not None and placeholder.id in stored:
            kept = placeholder.last_computed_at
            same = stored[placeholder.id] == board_digest(entries, digest)
        else:  # its rows were written anew (a full import): as the public saw it last
            kept, shown = compiled.get(placeholder.id, (None, None))
            same = kept is not None and shown == digest
        (m.TopperPlaceholder
         .update(last_computed_at=kept if same else now,
                 programmes_counted=counted, programmes_in_scope=in_scope)
         .where(m.TopperPlaceholder.id == placeholder.id)
         .execute())
    insert_rows(m.TopperEntry, rows)
    m.TopperHistory.delete().where(m.TopperHistory.placeholder.in_([p.id for p in placeholders])).execute()
    insert_rows(m.TopperHistory, histories, chunk=50)
    return len(placeholders)


def board_digest(entries, history_digest):
    """A digest of a board as stored: its entries (``TopperEntry``'s columns but the id, in
    any order) and its history's digest."""
    texts = sorted(orjson.dumps({k: v for k, v in entry.items() if k not in ("id", "placeholder")},
                                option=orjson.OPT_SORT_KEYS, default=str) for entry in entries)
    h = hashlib.sha256(history_digest.encode())
    for text in texts:
        h.update(b"\x00" + text)
    return h.hexdigest()


def stored_boards(placeholder_ids):
    """``{placeholder id: board_digest}`` of the boards stored now (none before a first compute)."""
    entries = {}
    for entry in m.TopperEntry.select().where(m.TopperEntry.placeholder.in_(placeholder_ids)).dicts():
        entries.setdefault(entry["placeholder"], []).append(entry)
    return {row.placeholder_id: board_digest(entries.get(row.placeholder_id, ()), row.digest)
            for row in m.TopperHistory.select(m.TopperHistory.placeholder, m.TopperHistory.digest)
            .where(m.TopperHistory.placeholder.in_(placeholder_ids))}


def compiled_boards(festival_id):
    """``{placeholder id: (lastComputedAt, history digest)}`` of the boards the public view
    shows now (compiled before this recompute). A full import writes the placeholders anew;
    a board whose history comes out the same shows the same entries, and keeps its time."""
    h = PublicTopperHistory
    return {pid: (at, digest) for pid, at, digest in
            PublicPlaceholder.select(PublicPlaceholder.id, PublicPlaceholder.last_computed_at, h.digest)
            .join(h, on=(h.placeholder == PublicPlaceholder.id) & (h.festival == PublicPlaceholder.festival))
            .where(PublicPlaceholder.festival == festival_id).tuples()}
