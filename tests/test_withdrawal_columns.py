"""Every column the visibility rules read guards the published results it can hide.

For each such column of each table (``seed.pipeline.guard.withdrawals.visibility_columns``, read from the
rules of ``db/source/visibility.py`` themselves) a row of the natural festival is changed so
that a published record would leave public view: ``import --update``, a full ``import``
and their dry runs list it and the first two are refused, writing nothing; with
``--allow-withdrawals``, or when the results' own rows withdraw them too, it is accepted.
"""
import pytest

from conftest import database_copy, writable, writable_app_on_copy
from natural_festival import PUBLISHED, natural_festival, update
from db.source import models as m
from seed.pipeline.write.importer import import_fixture
from seed.pipeline.write.update import update_fixture
from seed.pipeline.guard.withdrawals import WithdrawalRefused, visibility_columns
from test_withdrawals import stored

P1_WINNER = "published result main P1 chest 101, position 1: "
TEAM_WINNER = "published result main G1 team 'Red', position 2: "

MAIN_P1 = {"sub_fest_slug": "main", "sub_fest_programme_code": "P1"}
WITHDRAW_P1_101 = {"results": [{**MAIN_P1, "chest_no": "101", "withdrawn": True}]}
WITHDRAW_TEAM = {"results": [{"sub_fest_slug": "main", "sub_fest_programme_code": "G1", "team_name": "Red",
                              "withdrawn": True}]}
WITHDRAW_P1 = {"results": [{**MAIN_P1, "chest_no": chest, "withdrawn": True} for chest in ("101", "102")]}

# (section, the row's natural key, column, value, a line the listing must hold, rows that
#  withdraw the results too, or None where a programme or news item itself would go)
CASES = [
    ("results", {**MAIN_P1, "chest_no": "101"}, "is_published", False, P1_WINNER + "would be unpublished", None),
    ("results", {**MAIN_P1, "chest_no": "101"}, "is_public", False, P1_WINNER + "would be unpublished", None),
    ("registrations", {**MAIN_P1, "chest_no": "101"}, "is_active", False,
     P1_WINNER + "its entry is withdrawn", WITHDRAW_P1_101),
    ("registrations", {**MAIN_P1, "chest_no": "101"}, "type", "group",
     P1_WINNER + "its entry (registrations) would set type = group", WITHDRAW_P1_101),
    ("subFestCandidates", {"sub_fest_slug": "main", "chest_no": "101"}, "is_active", False,
     P1_WINNER + "candidate chest 101 (subFestCandidates) would set is_active = no", WITHDRAW_P1_101),
    ("subFestCandidates", {"sub_fest_slug": "main", "chest_no": "101"}, "is_public", False,
     P1_WINNER + "candidate chest 101 (subFestCandidates) would set is_public = no", WITHDRAW_P1_101),
    ("candidates", {"admission_number": "ADM-1"}, "is_active", False,
     P1_WINNER + "the person behind chest 101 (candidates) would set is_active = no", WITHDRAW_P1_101),
    ("candidates", {"admission_number": "ADM-1"}, "is_public", False,
     P1_WINNER + "the person behind chest 101 (candidates) would set is_public = no", WITHDRAW_P1_101),
    ("teams", {"sub_fest_slug": "main", "name": "Red"}, "is_active", False,
     TEAM_WINNER + "team 'Red' (teams) would set is_active = no", WITHDRAW_TEAM),
    ("teams", {"sub_fest_slug": "main", "name": "Red"}, "is_public", False,
     TEAM_WINNER + "team 'Red' (teams) would set is_public = no", WITHDRAW_TEAM),
    ("subFestProgrammes", {"sub_fest_slug": "main", "code": "P1"}, "is_active", False,
     "published programme main P1: would be hidden", None),
    ("subFestProgrammes", {"sub_fest_slug": "main", "code": "P1"}, "is_public", False,
     "published programme main P1: would be hidden", None),
    ("subFestProgrammes", {"sub_fest_slug": "main", "code": "P1"}, "status", "scheduled",
     "published programme main P1: its status would go from result_published to scheduled while its results "
     "stay public", WITHDRAW_P1),
    ("subFestProgrammes", {"sub_fest_slug": "main", "code": "P1"}, "status", "cancelled",
     "published programme main P1: its status would go from result_published to cancelled while its results "
     "stay public", WITHDRAW_P1),
    ("programmes", {"code": "LM"}, "is_active", False,
     "published programme main P1: would be hidden: its festival-wide programme (programmes) would set "
     "is_active = no", None),
    ("programmes", {"code": "LM"}, "is_public", False,
     "published programme main P1: would be hidden: its festival-wide programme (programmes) would set "
     "is_public = no", None),
    ("subFests", {"slug": "main"}, "is_active", False,
     "published programme main P1: would be hidden: sub-fest main (subFests) would set is_active = no", None),
    ("subFests", {"slug": "main"}, "is_public", False,
     "published programme main G1: would be hidden: sub-fest main (subFests) would set is_public = no", None),
    ("news", {"title": "Welcome"}, "status", "draft", "published news 'Welcome': would be unpublished", None),
    ("news", {"title": "Welcome"}, "is_public", False, "published news 'Welcome': would be unpublished", None),
    ("news", {"title": "Welcome"}, "published_at", None, "published news 'Welcome': would be unpublished", None),
]

# Columns that are references (a row moved elsewhere, checked as "left out or deleted" and
# by the checks of references), or that name the festival or the row itself.
REFERENCES = {"id", "festival", "sub_fest", "programme", "candidate", "registration", "sub_fest_programme",
              "sub_fest_candidate", "team"}
# What the listing says for news deleted in its own row (``deleted: yes``) is covered by
# tests/test_withdrawals.py: the column is not written by a file.
NOT_A_FILE_COLUMN = {(m.News, "is_deleted")}
# A result's status (absent, disqualified, withdrawn) is said by the result's own row, as
# ``withdrawn = yes`` is: never listed or refused (tests/test_positions.py).
SAID_BY_ITS_OWN_ROW = {(m.Result, "status")}
MODELS = {"results": m.Result, "registrations": m.Registration, "subFestCandidates": m.SubFestCandidate,
          "candidates": m.Candidate, "teams": m.Team, "subFestProgrammes": m.SubFestProgramme,
          "programmes": m.Programme, "subFests": m.SubFest, "news": m.News}


def test_the_cases_walk_every_column_the_visibility_rules_read():
    read = {(model, name) for model, names in visibility_columns().items() for name in names
            if name not in REFERENCES and model is not m.RegistrationMember}
    walked = {(MODELS[section], column) for section, _, column, *_ in CASES}
    assert read - NOT_A_FILE_COLUMN - SAID_BY_ITS_OWN_ROW <= walked
    assert (m.SubFestProgramme, "status") in walked  # the status rule, beside the privacy rules


def with_team_entry(data):
    """The natural festival with a team's own entry in G1, its result published."""
    data["registrations"].append({"sub_fest_slug": "main", "sub_fest_programme_code": "G1", "team_name": "Red",
                                  "type": "group", "group_name": "Red team"})
    data["results"].append({"sub_fest_slug": "main", "sub_fest_programme_code": "G1", "team_name": "Red",
                            "position": 2, "points": 2, "is_published": True, "published_at": PUBLISHED})
    return data


@pytest.fixture(scope="module")
def festival_template(seeded, tmp_path_factory):
    """A copy of the seeded database with the festival (and its team's entry) imported, made
    once: each test works on a copy of it (``festival``)."""
    with database_copy(seeded[0], tmp_path_factory.mktemp("natural")) as url:
        with writable(url):
            import_fixture(with_team_entry(natural_festival()))
        yield url


@pytest.fixture
def festival(festival_template, tmp_path):
    with writable_app_on_copy(festival_template, tmp_path) as (_, url):
        yield url


def listed(line, lines):
    """``line`` is listed, followed by what the file can say instead of the flag, if anything."""
    return any(shown == line or shown.startswith(line + " (") for shown in lines)


def changed_row(key, column, value):
    return {**key, column: value}


def full_document(section, key, column, value, also=None):
    """The whole festival again, with one row changed (and ``also``'s rows added)."""
    data = with_team_entry(natural_festival())
    rows = [row for row in data[section] if all(row.get(k) == v for k, v in key.items())]
    assert len(rows) == 1, (section, key)
    rows[0][column] = value
    for name, extra in (also or {}).items():
        for row in extra:
            match = [r for r in data[name] if all(r.get(k) == v for k, v in row.items() if k != "withdrawn")]
            match[0]["withdrawn"] = True
    return data


@pytest.mark.parametrize("section, key, column, value, line, withdraws", CASES,
                         ids=[f"{c[0]}.{c[2]}={c[3]}" for c in CASES])
def test_a_change_that_would_take_a_published_record_away_is_refused_and_listed(
        festival, section, key, column, value, line, withdraws):
    one_row = update(**{section: [changed_row(key, column, value)]})
    with writable(festival):
        before = stored()
        for write in (lambda: update_fixture(one_row), lambda: import_fixture(full_document(section, key, column, value))):
            with pytest.raises(WithdrawalRefused) as refused:
                write()
            assert listed(line, refused.value.lines())
            assert stored() == before
        for dry_run in (lambda: update_fixture(one_row, dry_run=True),
                        lambda: import_fixture(full_document(section, key, column, value), dry_run=True)):
            assert listed(line, [w.line() for w in dry_run().withdrawals])
            assert stored() == before
        if withdraws is not None:
            summary = update_fixture(update(**{section: [changed_row(key, column, value)]}, **withdraws))
            assert summary.withdrawals == []
        else:
            summary = update_fixture(one_row, allow_withdrawals=True)
            assert listed(line, [w.line() for w in summary.withdrawals])


@pytest.mark.parametrize("section, key, column, value, line, withdraws",
                         [c for c in CASES if c[5] is not None], ids=lambda c: str(c)[:20])
def test_the_flag_lets_a_full_import_take_it_away(festival, section, key, column, value, line, withdraws):
    with writable(festival):
        summary = import_fixture(full_document(section, key, column, value), allow_withdrawals=True)
        assert listed(line, [w.line() for w in summary.withdrawals])
        assert import_fixture(full_document(section, key, column, value, withdraws)).withdrawals == []


def test_a_change_that_hides_nothing_published_is_accepted(festival):
    """Hiding a category or a candidate without a published result takes nothing away."""
    with writable(festival):
        summary = update_fixture(update(categories=[{"sub_fest_slug": "main", "name": "Senior", "is_public": False}],
                                        subFestCandidates=[{"sub_fest_slug": "main", "chest_no": "103",
                                                            "is_public": False}]))
    assert summary.withdrawals == []
