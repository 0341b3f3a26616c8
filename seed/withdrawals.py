"""Published records an import would take away from the public, and the rule that guards them.

A published result, a published programme or a published news item goes when its row is
left out of a full import, deleted, unpublished or hidden, or when a row it depends on goes
(a result whose entry is withdrawn). On result day that is how a morning's folder, imported
again in the afternoon, would undo the results published since: so such an import is refused,
listing what would go, unless the operator passes ``--allow-withdrawals``.

A row that says so itself is the operator's word for that record: a result row with
``withdrawn: yes``, a news row with ``deleted: yes``. A withdrawn entry is not a word for its
published result: the same file must withdraw the result too.
"""
from dataclasses import dataclass

from db.source import models as m

ALLOW_FLAG = "--allow-withdrawals"


@dataclass(frozen=True)
class Withdrawal:
    """One published record that would go: ``kind`` is result, programme or news."""

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


def _value(model, row, name):
    if name in row:
        return row[name]
    default = model._meta.fields[name].default
    return None if callable(default) else default


def _flags(model, row, *names):
    return all(_value(model, row, name) for name in names)


def _programme_public(state, sfp_id):
    sfp = state.rows["subFestProgrammes"].get(sfp_id)
    if sfp is None or not _flags(m.SubFestProgramme, sfp, "is_active", "is_public"):
        return False
    master = state.rows["programmes"].get(sfp.get("programme"))
    return master is not None and _flags(m.Programme, master, "is_active", "is_public")


def _result_public(state, result_id):
    result = state.rows["results"].get(result_id)
    if result is None or not _flags(m.Result, result, "is_published", "is_public"):
        return False
    registration = state.rows["registrations"].get(result.get("registration"))
    return registration is not None and _flags(m.Registration, registration, "is_active")


def _news_public(state, news_id):
    news = state.rows["news"].get(news_id)
    return (news is not None and _value(m.News, news, "status") == "published"
            and _flags(m.News, news, "is_public") and not _value(m.News, news, "is_deleted"))


def _programme_name(state, sfp_id):
    sfp = state.rows["subFestProgrammes"][sfp_id]
    sub_fest = state.rows["subFests"].get(sfp.get("sub_fest"), {})
    return f"{sub_fest.get('slug', '?')} {sfp.get('code')}"


def _result_name(state, result_id):
    result = state.rows["results"][result_id]
    registration = state.rows["registrations"].get(result.get("registration"), {})
    entry = state.rows["subFestCandidates"].get(registration.get("sub_fest_candidate"), {})
    team = state.rows["teams"].get(registration.get("team"), {})
    if entry.get("chest_no"):
        who = f"chest {entry['chest_no']}"
    else:  # a team's own entry
        who = f"team {team.get('name') or registration.get('group_name')!r}"
    place = f", position {result['position']}" if result.get("position") else ""
    programme = result.get("sub_fest_programme") or registration.get("sub_fest_programme")
    return f"{_programme_name(state, programme)} {who}{place}"


def _result_why(old, new, result_id):
    result = new.rows["results"].get(result_id)
    if result is None:
        return "left out or deleted", ""
    registration = new.rows["registrations"].get(result.get("registration"))
    if registration is not None and not _flags(m.Registration, registration, "is_active"):
        return ("its entry is withdrawn",
                "to withdraw the result as well, add a results row for it with withdrawn = yes")
    return "would be unpublished", ""


def published_withdrawals(old, new, said_so=frozenset()):
    """The published records of ``old`` that ``new`` no longer shows, in file order.

    ``said_so``: ids whose own row withdraws or deletes them (not listed).
    """
    if old is None:
        return []
    found = []
    gone_programmes = set()
    for sfp_id in old.rows["subFestProgrammes"]:
        if _programme_public(old, sfp_id) and not _programme_public(new, sfp_id):
            gone_programmes.add(sfp_id)
            why = "left out" if sfp_id not in new.rows["subFestProgrammes"] else "would be hidden"
            found.append(Withdrawal("programme", _programme_name(old, sfp_id), why))
    for result_id, result in old.rows["results"].items():
        programme = result.get("sub_fest_programme")
        if (result_id in said_so or programme in gone_programmes or not _programme_public(old, programme)
                or not _result_public(old, result_id) or _result_public(new, result_id)):
            continue
        why, fix = _result_why(old, new, result_id)
        found.append(Withdrawal("result", _result_name(old, result_id), why, fix))
    for news_id, news in old.rows["news"].items():
        if news_id not in said_so and _news_public(old, news_id) and not _news_public(new, news_id):
            why = "left out" if news_id not in new.rows["news"] else "would be unpublished"
            found.append(Withdrawal("news", repr(news.get("title")), why))
    order = {"programme": 0, "result": 1, "news": 2}
    return sorted(found, key=lambda w: (order[w.kind], w.name))
