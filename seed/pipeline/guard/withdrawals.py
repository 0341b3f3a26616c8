"""Published records an import would take away from the public, and the rule that guards them.

A published result, a visible programme or a published news item goes when any row the
visibility rules (``db/source/visibility.py``) read for it changes or goes: its own row, its
entry, the candidate or person behind it, its group's members, its team, its programme and
the programme's master row, its sub-fest. What would go is not worked out column by column
here: :func:`guarded_write` asks the rules themselves which records are public before the
rows are written and after (inside the writer's transaction), so no column can be
forgotten. A programme whose results are public that would leave ``result_published``
(back to ``scheduled``, ``draft``, ``cancelled``, ...) while they stay public is refused too.

Two more ways take a published record away without hiding it by those rules, and are
refused the same way: the festival row set to ``is_active = no`` (every key then answers
401, so everything published goes at once), and a published result that stays public but
becomes someone else's: moved to another registration, or its registration given another
candidate (or team). The result is named as the public knew it.

On result day that is how a morning's folder, imported again in the afternoon, or one
mistyped ``is_public`` would undo published results: so such a write is refused, listing
what would go in the file's terms, unless the operator passes ``--allow-withdrawals``.

A row that says so itself is the operator's word for that record: a result row with
``withdrawn: yes``, a news row with ``deleted: yes``. A withdrawn entry or a hidden
candidate is not a word for its published result: the same file must withdraw the result
too. ``import``, ``import --update`` and their ``--dry-run`` call :func:`guarded_write`; so
can any other writer of a festival's rows.
"""
from dataclasses import dataclass, field

from peewee import Expression, Field, Function, Join, ModelSelect, Negated, NodeList

from db.peewee_compat import join_condition, query_conditions
from db.source import models as m
from db.source import visibility

ALLOW_FLAG = "--allow-withdrawals"
RESULTS_ANNOUNCED = "result_published"
FIX = "to withdraw the result as well, add a results row for it with withdrawn = yes"
MOVE_FIX = ("a published result stays with its entry: to give the place to another entry, withdraw this "
            "result (withdrawn = yes) and add a results row for the other entry")
OFF_FIX = "keep is_active = yes; to take the festival down on purpose, use " + ALLOW_FLAG


@dataclass(frozen=True)
class Withdrawal:
    """One published record that would go: ``kind`` is festival, result, programme or news."""

    kind: str
    name: str
    why: str
    # what the file can say instead of the flag, when there is such a row
    fix: str = ""

    def line(self):
        return f"published {self.kind} {self.name}: {self.why}" + (f" ({self.fix})" if self.fix else "")


class WithdrawalRefused(Exception):
    """The import would take published records away and the operator did not allow it."""

    def __init__(self, withdrawals):
        self.withdrawals = withdrawals
        super().__init__(len(withdrawals))

    def lines(self):
        return [w.line() for w in self.withdrawals]


# --- what the rules show ----------------------------------------------------------------------


@dataclass
class PublicView:
    """The festival's public records as the visibility rules give them, by id."""

    programmes: dict  # sub-fest programme id -> status
    results: dict  # result id -> sub-fest programme id
    news: set
    # result id -> whose it is: (registration id, its sub-fest candidate id, its team id)
    holders: dict = field(default_factory=dict)
    # the festival is served at all: a festival with is_active = no answers every key 401
    live: bool = True


def public_view(festival_id):
    """:class:`PublicView` of the stored rows of ``festival_id`` (in the caller's transaction)."""
    programmes = dict(visibility.public_programmes(festival_id, m.SubFestProgramme.id, m.SubFestProgramme.status)
                      .tuples())
    results, holders = {}, {}
    for result_id, sfp_id, *holder in visibility.public_entry_results(
            festival_id, m.Result.id, m.Result.sub_fest_programme, m.Result.registration,
            m.Registration.sub_fest_candidate, m.Registration.team).tuples():
        results[result_id], holders[result_id] = sfp_id, tuple(holder)
    news = {news_id for news_id, in visibility.published_news_of(festival_id).select(m.News.id).tuples()}
    live = m.Festival.select(m.Festival.is_active).where(m.Festival.id == festival_id).scalar()
    return PublicView(programmes, results, news, holders, bool(live))


def visibility_columns():
    """``{model: {column names}}`` that the visibility rules of programmes, results and news
    read: the columns whose change can take a published record away."""
    found = {}
    for query in (visibility.public_programmes(None), visibility.public_entry_results(None), visibility.published_news_of(None)):
        for f in _fields(query, set()):
            found.setdefault(f.model, set()).add(f.name)
    return found


def _fields(node, seen):
    """Every model field a query or expression of the rules names (its subqueries too)."""
    if id(node) in seen:
        return
    seen.add(id(node))
    if isinstance(node, Field):
        yield node
    elif isinstance(node, Expression):
        yield from _fields(node.lhs, seen)
        yield from _fields(node.rhs, seen)
    elif isinstance(node, Negated):
        yield from _fields(node.node, seen)
    elif isinstance(node, Function):
        for argument in node.arguments:
            yield from _fields(argument, seen)
    elif isinstance(node, NodeList):
        for item in node.nodes:
            yield from _fields(item, seen)
    elif isinstance(node, Join):
        yield from _fields(node.lhs, seen)
        yield from _fields(node.rest if hasattr(node, "rest") else node.rhs, seen)
        yield from _fields(join_condition(node), seen)
    elif isinstance(node, ModelSelect):  # what it selects is not a condition: left out
        for part in query_conditions(node):
            yield from _fields(part, seen)
    elif isinstance(node, (list, tuple)):
        for item in node:
            yield from _fields(item, seen)


# --- what would go, in the file's terms -------------------------------------------------------


class _Terms:
    """Names and causes in the terms of the festival's file, from its rows before and after."""

    def __init__(self, old, new, columns):
        self.old, self.new, self.columns = old, new, columns

    def programme(self, sfp_id):
        sfp = self.old.rows["subFestProgrammes"][sfp_id]
        sub_fest = self.old.rows["subFests"].get(sfp.get("sub_fest"), {})
        return f"{sub_fest.get('slug', '?')} {sfp.get('code')}"

    def result(self, result_id):
        result = self.old.rows["results"][result_id]
        registration = self.old.rows["registrations"].get(result.get("registration"), {})
        entry = self.old.rows["subFestCandidates"].get(registration.get("sub_fest_candidate"), {})
        team = self.old.rows["teams"].get(registration.get("team"), {})
        if entry.get("chest_no"):
            who = f"chest {entry['chest_no']}"
        else:  # a team's own entry
            who = f"team {team.get('name') or registration.get('group_name')!r}"
        place = f", position {result['position']}" if result.get("position") else ""
        programme = result.get("sub_fest_programme") or registration.get("sub_fest_programme")
        return f"{self.programme(programme)} {who}{place}"

    def holder(self, state, registration_id):
        """``chest 101`` or ``team 'Red'``: whose entry ``registration_id`` is in ``state``."""
        registration = state.rows["registrations"].get(registration_id, {})
        entry = state.rows["subFestCandidates"].get(registration.get("sub_fest_candidate"), {})
        if entry.get("chest_no"):
            return f"chest {entry['chest_no']}"
        team = state.rows["teams"].get(registration.get("team"), {})
        return f"team {team.get('name') or registration.get('group_name')!r}"

    def moved_why(self, result_id, before, after):
        """Why a result that stays public would be someone else's: ``before`` and ``after``
        are its holders (:attr:`PublicView.holders`)."""
        if before[0] != after[0]:
            return (f"its row would set registration = the entry of {self.holder(self.new, after[0])} "
                    f"(it is {self.holder(self.old, before[0])}'s)")
        changed = [name for name, old, new in zip(("sub_fest_candidate", "team"), before[1:], after[1:]) if old != new]
        return (f"its entry (registrations) would set {', '.join(changed)}: it would be "
                f"{self.holder(self.new, after[0])}'s instead of {self.holder(self.old, before[0])}'s")

    def _chest(self, sfc_id):
        return self.old.rows["subFestCandidates"].get(sfc_id, {}).get("chest_no", "?")

    def _rows_of_programme(self, sfp_id):
        sfp = self.old.rows["subFestProgrammes"].get(sfp_id, {})
        yield "subFestProgrammes", m.SubFestProgramme, sfp_id, f"programme {self.programme(sfp_id)}"
        yield "programmes", m.Programme, sfp.get("programme"), "its festival-wide programme"
        sub_fest = self.old.rows["subFests"].get(sfp.get("sub_fest"), {})
        yield "subFests", m.SubFest, sfp.get("sub_fest"), f"sub-fest {sub_fest.get('slug', '?')}"

    def _rows_of_result(self, result_id):
        """``(section, model, id, what)`` of every row the result's visibility reads."""
        result = self.old.rows["results"][result_id]
        registration_id = result.get("registration")
        registration = self.old.rows["registrations"].get(registration_id, {})
        yield "registrations", m.Registration, registration_id, "its entry"
        people = [registration.get("sub_fest_candidate")]
        people += self.old.links["registrations"].get(registration_id, {}).get("members", [])
        for sfc_id in dict.fromkeys(p for p in people if p):
            person = self.old.rows["subFestCandidates"].get(sfc_id, {}).get("candidate")
            yield "subFestCandidates", m.SubFestCandidate, sfc_id, f"candidate chest {self._chest(sfc_id)}"
            yield "candidates", m.Candidate, person, f"the person behind chest {self._chest(sfc_id)}"
        if registration.get("team"):
            team = self.old.rows["teams"].get(registration["team"], {})
            yield "teams", m.Team, registration["team"], f"team {team.get('name')!r}"
            sub_fest = self.old.rows["subFests"].get(team.get("sub_fest"), {})
            yield "subFests", m.SubFest, team.get("sub_fest"), f"sub-fest {sub_fest.get('slug', '?')}"
        yield from self._rows_of_programme(result.get("sub_fest_programme"))

    def causes(self, rows):
        """What changed in ``rows`` that the rules read: "left out" or ``column = value``."""
        found = []
        for section, model, row_id, what in rows:
            if row_id is None or row_id not in self.old.rows[section]:
                continue
            after = self.new.rows[section].get(row_id)
            if after is None:
                found.append(f"{what} ({section}) is left out or deleted")
                continue
            before = self.old.rows[section][row_id]
            changed = [name for name in sorted(self.columns.get(model, ())) if name in model._meta.fields
                       and _value(model, before, name) != _value(model, after, name)]
            links = self.old.links[section].get(row_id, {}), self.new.links[section].get(row_id, {})
            if section == "registrations" and links[0].get("members") != links[1].get("members"):
                changed.append("members")
            if changed:
                found.append(f"{what} ({section}) would set "
                             + ", ".join(f"{name} = {_shown(model, after, links[1], name)}" for name in changed))
        return list(dict.fromkeys(found))

    def result_why(self, result_id):
        if result_id not in self.new.rows["results"]:
            return "left out or deleted", ""
        own = self.causes([("results", m.Result, result_id, "its row")])
        others = self.causes(self._rows_of_result(result_id))
        registration = self.new.rows["registrations"].get(self.old.rows["results"][result_id].get("registration"))
        if not own and registration is not None and not _value(m.Registration, registration, "is_active"):
            return "its entry is withdrawn", FIX
        if own and not others:
            return "would be unpublished", ""
        return "; ".join(own + others) or "would be hidden", FIX if others else ""

    def programme_why(self, sfp_id):
        if sfp_id not in self.new.rows["subFestProgrammes"]:
            return "left out"
        others = self.causes(list(self._rows_of_programme(sfp_id))[1:])
        return "would be hidden" + (f": {'; '.join(others)}" if others else "")


def _value(model, row, name):
    if name in row:
        return row[name]
    f = model._meta.fields[name]
    return None if callable(f.default) else f.default


def _shown(model, row, links, name):
    if name == "members":
        return f"{len(links.get('members', []))} member(s)"
    value = _value(model, row, name)
    if isinstance(value, bool):
        return "yes" if value else "no"
    return "(empty)" if value is None else str(value)


def withdrawals_between(before, after, old, new, said_so=frozenset()):
    """The published records of ``before`` (a :class:`PublicView`) that ``after`` no longer
    shows, named from the rows ``old`` and ``new`` (``FestivalState``), in order.

    ``said_so``: ids whose own row withdraws or deletes them (not listed).
    """
    if old is None:
        return []
    terms = _Terms(old, new, visibility_columns())
    found = []
    if before.live and not after.live and (before.programmes or before.results or before.news):
        found.append(Withdrawal(
            "festival", old.festival.get("slug", "?"),
            f"the festival row would set is_active = no: every API key would answer 401, taking away "
            f"{len(before.programmes)} programme(s), {len(before.results)} result(s) and {len(before.news)} "
            "news item(s)", OFF_FIX))
    gone_programmes = set(before.programmes) - set(after.programmes)
    for sfp_id in gone_programmes:
        found.append(Withdrawal("programme", terms.programme(sfp_id), terms.programme_why(sfp_id)))
    for result_id, sfp_id in before.results.items():
        if result_id in said_so or sfp_id in gone_programmes or result_id in after.results:
            continue
        why, fix = terms.result_why(result_id)
        found.append(Withdrawal("result", terms.result(result_id), why, fix))
    for result_id, holder in before.holders.items():
        now = after.holders.get(result_id)
        if result_id in said_so or now is None or now == holder:
            continue
        found.append(Withdrawal("result", terms.result(result_id), terms.moved_why(result_id, holder, now), MOVE_FIX))
    still_public = set(after.results.values())
    for sfp_id, status in before.programmes.items():
        now = after.programmes.get(sfp_id)
        if status == RESULTS_ANNOUNCED and now not in (None, RESULTS_ANNOUNCED) and sfp_id in still_public:
            found.append(Withdrawal(
                "programme", terms.programme(sfp_id),
                f"its status would go from {RESULTS_ANNOUNCED} to {now} while its results stay public",
                "keep the status, or withdraw each of its results in a results row with withdrawn = yes"))
    for news_id in before.news - after.news:
        if news_id not in said_so:
            why = "left out" if news_id not in new.rows["news"] else "would be unpublished"
            found.append(Withdrawal("news", repr(old.rows["news"][news_id].get("title")), why))
    order = {"festival": -1, "programme": 0, "result": 1, "news": 2}
    return sorted(found, key=lambda w: (order[w.kind], w.name, w.why))


def guarded_write(festival_id, old, new, write, allow=False, dry_run=False):
    """Run ``write()`` (which writes ``new``'s rows over ``old``'s) inside the caller's write
    transaction, and return what it took from the public (:func:`withdrawals_between`).

    Raises :class:`WithdrawalRefused` after the write, so the caller's transaction rolls it
    back, when something published would go and neither ``allow`` nor ``dry_run`` is set.
    """
    if old is None:  # a new festival: nothing of it is public yet
        write()
        return []
    before = public_view(festival_id)
    write()
    after = public_view(festival_id)
    withdrawals = withdrawals_between(before, after, old, new, new.said_gone)
    if withdrawals and not (allow or dry_run):
        raise WithdrawalRefused(withdrawals)
    return withdrawals
