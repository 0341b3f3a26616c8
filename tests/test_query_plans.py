"""Every list is flat at any size: SQLite's plan of each list's page, for every sort field
and direction, reads an index in order (no temporary B-tree, no scan of a compiled table),
and the total of an unfiltered list is one stored row, not a count (docs/performance.md,
"Query plans"). PostgreSQL's plans depend on the size of the tables; its speed at scale 20 against scale 1
is ``bench/read_model.py --scales 1,20 --postgres URL``'s.
"""
import datetime

import pytest

import db.read.candidates
import db.read.registrations
import db.read.sql
from conftest import BIG, ON_POSTGRES, writable
from db.compiled.tables import PublicCandidate, PublicPlaceholder, PublicProgramme, PublicSubFest
from db.read import (
    candidates,
    categories,
    downloads,
    gallery,
    news,
    programmes,
    registrations,
    schedules,
    subfests,
    teams,
    toppers,
)
from db.source import models as m

pytestmark = pytest.mark.skipif(ON_POSTGRES, reason="SQLite's EXPLAIN QUERY PLAN")

NOW = datetime.datetime(2026, 1, 15, 12, 0)

# list -> (its sort table, a call reading one page: (ids, sort_by, sort_order, **filters))
LISTS = {
    "/subfests": (subfests.SUB_FEST_SORTS, lambda i, by, order, **f: subfests.list_sub_fests(
        i["festival"], 1, 20, by, order, **f)),
    "/programmes": (programmes.PROGRAMME_SORTS, lambda i, by, order, **f: programmes.list_programmes(
        i["festival"], i["sub_fest"], 1, 20, by, order, NOW, **f)),
    "/programme-results": (programmes.PROGRAMME_SORTS, lambda i, by, order, **f: programmes.list_programme_results(
        i["festival"], i["sub_fest"], 1, 20, by, order, NOW, **f)),
    "/candidates": (candidates.CANDIDATE_SORTS, lambda i, by, order, **f: candidates.list_candidates(
        i["festival"], i["sub_fest"], 1, 20, by, order, **f)),
    "/teams": (teams.TEAM_SORTS, lambda i, by, order, **f: teams.list_teams(
        i["festival"], i["sub_fest"], 1, 20, by, order, **f)),
    "/categories": (categories.CATEGORY_SORTS, lambda i, by, order, **f: categories.list_categories(
        i["festival"], i["sub_fest"], 1, 20, by, order, **f)),
    "/schedules": (schedules.SCHEDULE_SORTS, lambda i, by, order, **f: schedules.list_schedules(
        i["festival"], "Asia/Kolkata", 1, 20, by, order, **f)),
    "/topper-placeholders": (toppers.PLACEHOLDER_SORTS, lambda i, by, order, **f: toppers.list_placeholders(
        i["festival"], i["sub_fest"], 1, 20, by, order, **f)),
    "/toppers": (toppers.ENTRY_SORTS, lambda i, by, order: toppers.list_entries(
        i["festival"], i["placeholder"], 1, 20, by, order)),
    "/gallery": (gallery.IMAGE_SORTS, lambda i, by, order, **f: gallery.list_images(
        i["festival"], 1, 20, by, order, **f)),
    "/downloads": (downloads.DOWNLOAD_SORTS, lambda i, by, order, **f: downloads.list_downloads(
        i["festival"], 1, 20, by, order, **f)),
}
# Small lists that keep a sort step, each for a reason:
OTHERS = {
    # the news visible now: the planner reads the (festival, publishedAt) range and sorts
    # what it finds by another field; a festival has a few dozen news items at any size
    "/news": (news.NEWS_SORTS, lambda i, by, order: news.list_news(i["festival"], 1, 20, by, order, NOW)),
    # one candidate's entries, joined to the candidate: a handful of rows
    "/candidate-registrations": (registrations.REGISTRATION_SORTS, lambda i, by, order: (
        registrations.list_candidate_registrations(i["festival"], i["candidate"], 1, 20, by, order))),
}


@pytest.fixture(scope="module")
def ids(seeded):
    with writable(seeded[0]):
        festival = m.Festival.get(m.Festival.slug == BIG).id
        sub_fest = max((s.id for s in PublicSubFest.select().where(PublicSubFest.festival == festival)),
                       key=lambda s: PublicProgramme.select().where(PublicProgramme.sub_fest == s).count())
        placeholder = (PublicPlaceholder.select().where(PublicPlaceholder.sub_fest == sub_fest)
                       .order_by(PublicPlaceholder.id).first().id)
        candidate = PublicCandidate.select().where(PublicCandidate.sub_fest == sub_fest).order_by(PublicCandidate.id).first().id
    return {"festival": festival, "sub_fest": sub_fest, "placeholder": placeholder, "candidate": candidate}


@pytest.fixture
def plans(seeded, monkeypatch):
    """``plans(read)``: ``[(sql, [plan lines])]`` of every statement ``read()`` runs."""
    def collect(read):
        statements = []
        run = db.read.sql.run

        def recording(sql, params):
            statements.append((sql, params))
            return run(sql, params)

        monkeypatch.setattr(db.read.sql, "run", recording)
        monkeypatch.setattr(db.read.registrations, "run", recording)
        monkeypatch.setattr(db.read.candidates, "run", recording)
        with writable(seeded[0]) as connection:
            read()
            return [(sql, [row[3] for row in connection.execute_sql(f"EXPLAIN QUERY PLAN {sql}", params)])
                    for sql, params in statements]
    return collect


def _cases(lists):
    return [(name, sort_by, order) for name, (sorts, _) in lists.items() for sort_by in sorts
            for order in ("asc", "desc")]


def split_plan(plan):
    """The plan of a page statement as ``(page lines, total lines)``: the total is the
    statement's scalar subquery, planned after the page."""
    at = next((i for i, line in enumerate(plan) if line.startswith("SCALAR SUBQUERY")), len(plan))
    return plan[:at], plan[at + 1:]


@pytest.mark.parametrize("name, sort_by, order", _cases(LISTS))
def test_a_page_is_read_in_index_order_and_the_total_is_stored(plans, ids, name, sort_by, order):
    _, read = LISTS[name]
    [(sql, plan)] = plans(lambda: read(ids, sort_by, order))  # the page and its total: one statement
    page_plan, total_plan = split_plan(plan)
    assert '"public_total"' in sql and "COUNT" not in sql
    assert total_plan and [line for line in total_plan if not line.startswith("SEARCH public_total USING")] == []
    assert len(page_plan) == 1, plan
    assert page_plan[0].startswith("SEARCH public_") and " USING INDEX " in page_plan[0], plan
    assert "_by_" in page_plan[0], plan  # one of the sort indexes


def test_the_schedules_of_one_sub_fest_have_a_stored_total(plans, ids):
    _, read = LISTS["/schedules"]
    [(sql, plan)] = plans(lambda: read(ids, "scheduledAt", "asc", sub_fest_id=ids["sub_fest"]))
    page_plan, _ = split_plan(plan)
    assert '"public_total"' in sql
    assert page_plan == ["SEARCH public_schedule USING INDEX public_schedule_by_scheduled_at (festival=?)"]


def test_a_page_past_the_end_asks_for_the_total_alone(plans, ids):
    found = []
    statements = plans(lambda: found.append(programmes.list_programmes(
        ids["festival"], ids["sub_fest"], 10**6, 20, "displayOrder", "asc", NOW)))
    assert len(statements) == 2 and found[0].items == [] and found[0].total > 0
    assert statements[1][0].startswith('SELECT "total" FROM "public_total"')


@pytest.mark.parametrize("name, sort_by, order", _cases(OTHERS))
def test_the_small_lists_search_an_index_and_never_scan_a_table(plans, ids, name, sort_by, order):
    _, read = OTHERS[name]
    for sql, plan in plans(lambda: read(ids, sort_by, order)):
        assert not [line for line in plan if line.startswith("SCAN public_")], (sql, plan)


@pytest.mark.parametrize("name, filters", [
    ("/programmes", {"statuses": ["completed", "result_published"]}),
    ("/programmes", {"has_results": True}),
    ("/candidates", {"gender": ["female"]}),
    ("/candidates", {"search": "a"}),
    ("/teams", {"has_candidates": [True]}),
    ("/schedules", {"sub_fest_id": "SUB_FEST", "scheduled_at_to": datetime.datetime(2030, 1, 1)}),
    ("/schedules", {"scheduled_at_from": datetime.datetime(2020, 1, 1)}),
])
def test_a_filtered_list_is_counted_within_its_scope_index(plans, ids, name, filters):
    """A filter narrows the list, so its total is counted, over the rows of the list's
    scope found by index, never over the whole table."""
    filters = {key: ids["sub_fest"] if value == "SUB_FEST" else value for key, value in filters.items()}
    sorts, read = LISTS[name]
    [(sql, plan)] = plans(lambda: read(ids, next(iter(sorts)), "asc", **filters))
    page_plan, count_plan = split_plan(plan)
    assert "(SELECT COUNT(*) FROM" in sql and count_plan
    for part in (count_plan, page_plan):
        assert not [line for line in part if line.startswith("SCAN public_") or "TEMP B-TREE" in line], plan


@pytest.mark.parametrize("terms, index", [
    (["anu"], "text index"), (["ANU", "1"], "text index"), (['"nai'], "text index"), (["nai"], "text index"),
    (["an"], "pairs"), (["V."], "pairs"), (["V.", "an"], "pairs"),
    (["a", "%"], "sort index"), (["an", "a"], "sort index"),
])
@pytest.mark.parametrize("sort_by", sorted(candidates.CANDIDATE_SORTS))
@pytest.mark.parametrize("order", ["asc", "desc"])
def test_a_candidate_search_reads_an_index_never_the_rows_of_the_sub_fest(plans, ids, terms, index, sort_by, order):
    """``/candidates?search=``: a term of 3 characters or more is found by the text index
    (db/compiled/text_index.py) in the sub-fest's range of the index, in the list's order
    (no sort step), and the page reads only the rows it shows; a full page's total is
    counted on the index alone (a shorter term is checked on the row it finds). Terms of two
    characters alone are found by the index of their pairs of characters, the same way.
    A term of one character (in every other row) is matched on the ``search`` column the
    sort index holds, so the count reads no row and the page only the rows it shows."""
    statements = plans(lambda: candidates.list_candidates(ids["festival"], ids["sub_fest"], 1, 2, sort_by, order,
                                                          search=terms))
    if index in ("text index", "pairs"):
        table = "public_candidate_search" if index == "text index" else "public_candidate_search_pairs"
        (page_sql, page_plan), *counted = statements
        # MATCH and the rowid range (">", "<"), in rowid order (FTS5's flag 64; 128: descending)
        assert [line for line in page_plan if "public_candidate" in line and "_scope" not in line] == [
            f"SCAN {table} VIRTUAL TABLE INDEX {64 if order == 'asc' else 192}:M2><",
            "SEARCH public_candidate USING INDEX sqlite_autoindex_public_candidate_1 (id=?)"], page_plan
        assert not [line for line in page_plan if "TEMP B-TREE" in line], page_plan
        assert len(counted) <= 1
        for count_sql, count_plan in counted:
            rows = [line for line in count_plan if "public_candidate" in line and "_scope" not in line]
            if len({term.lower() for term in terms}) == 1:  # one term alone: its kept count first
                assert rows[0] == KEPT_COUNT, count_plan
                rows = rows[1:]
            assert rows[0] == f"SCAN {table} VIRTUAL TABLE INDEX 0:M2><", count_plan
            assert rows[1:] == ([] if index == "pairs" or all(len(t) >= 3 for t in terms) else
                                ["SEARCH public_candidate USING INDEX sqlite_autoindex_public_candidate_1 (id=?)"])
    else:
        [(sql, plan)] = statements
        page_plan, count_plan = split_plan(plan)
        assert "public_candidate_search" not in sql
        direction = "" if order == "asc" else "DESC "
        assert page_plan == [f"SEARCH public_candidate USING INDEX public_candidate_by_"
                             f"{'chest_no_key' if sort_by == 'chestNo' else 'name_key'}_with_search "
                             f"(festival=? AND sub_fest=?)"], plan
        assert [line for line in count_plan if "public_candidate" in line] == [
            line for line in count_plan if line.startswith("SEARCH public_candidate USING COVERING INDEX")], plan
        assert count_plan, plan


KEPT_COUNT = "SEARCH public_candidate_search_counts USING PRIMARY KEY (scope=? AND term=?)"


def test_a_search_that_fills_its_page_is_counted_on_the_index_alone(plans, ids):
    """A common word: the page stops at its rows and one past them, and the total is the
    count kept for the term (``public_candidate_search_counts``), else a count of the
    index's rows in the sub-fest's range, no candidate's row read."""
    found = []
    statements = plans(lambda: found.append(candidates.list_candidates(
        ids["festival"], ids["sub_fest"], 1, 2, "name", "asc", search=["nai"])))
    assert len(statements) == 2 and len(found[0].items) == 2 and found[0].total > 2
    count_sql, count_plan = statements[1]
    assert count_sql.startswith('SELECT coalesce((SELECT total FROM "public_candidate_search_counts" WHERE')
    assert [line for line in count_plan if "public_candidate" in line and "_scope" not in line] == [
        KEPT_COUNT, "SCAN public_candidate_search VIRTUAL TABLE INDEX 0:M2><"], count_plan
    statements = plans(lambda: candidates.list_candidates(
        ids["festival"], ids["sub_fest"], 1, 2, "name", "asc", search=["nai", "air"]))
    assert statements[1][0].startswith('SELECT COUNT(*) FROM "public_candidate_search" WHERE')  # two terms


def test_a_page_with_no_row_after_it_is_not_counted(plans, ids):
    """A page as long as the limit but with no match after it (a whole name at
    ``limit=1``) is the last: its total is its offset and rows, no count."""
    found = []
    statements = plans(lambda: found.append(candidates.list_candidates(
        ids["festival"], ids["sub_fest"], 1, 20, "name", "asc", search=["nai"])))
    name = found[0].items[0][0].split('"name":"', 1)[1].split('"', 1)[0]
    found.clear()
    statements = plans(lambda: found.append(candidates.list_candidates(
        ids["festival"], ids["sub_fest"], 1, 1, "name", "asc", search=[name])))
    assert len(statements) == 1 and len(found[0].items) == 1 and found[0].total == 1, name
