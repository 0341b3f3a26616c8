"""``/candidates?search=`` through the text index (``db/compiled/text_index.py``) finds
exactly what the matching rule finds: a term anywhere in the name, local name or chest
number, A-Z folded and nothing else, ``%``, ``_`` and ``\\`` literal, every term. The rule
is written here in Python, and the reader is run on many strings against it, on every
public sub-fest (the plans are pinned in tests/test_query_plans.py)."""
import random
import uuid

import pytest
from conftest import BIG, ON_POSTGRES, writable

from db.compiled.tables import PublicCandidate as C
from db.compiled.text_index import INDEX, has_text_index
from db.query import SEARCH_SEPARATOR, ascii_lower
from db.read import candidates
from db.read.sql import Select, contains_all, equals
from db.source import models as m

# Strings whose matching a reader could get wrong: FTS5 query syntax, LIKE's wildcards and
# escape, quotes, short terms under the index's 3 characters, case, Malayalam, digits.
SPECIAL = [
    "%", "_", "\\", '"', '""', "*", "a%", "%a", "_n", "n_", "%_%", "\\%", "a\\", 'a"n', '"anu"', "an*", "*an",
    "AND", "OR", "NOT", "NEAR", "near(a b)", "a OR b", "a AND n", "-a", "+a", "^a", "(a)", "{a}", "name:a",
    "a:b", "'", "' OR '1'='1", ";", "a b", "  ", ".", "-", "1", "10", "100", "1001", "A", "AN", "ANU",
    "É", "é", "ÉCOLE", "ß", "İ", "ı", "\u00e9\u0301", "\U0001F600", "ന", "ക", "കു", "മാർ", "ലക്ഷ്മി",
    "\u200d", "\u0d4d", "x" * 40, SEARCH_SEPARATOR, "a" + SEARCH_SEPARATOR + "b",
    # 3 characters or more, decided by the index alone: folding the rule does not do (FTS5's
    # own folding would), wildcards and FTS5 syntax inside a phrase, spaces, trigram edges.
    "ÉCO", "éco", "École", "STRASSE", "straße", "İSTANBUL", "ıst", "ΣΑΣ", "σας", "ＡＢＣ", "ÀNU",
    "%%%", "___", "\\\\\\", '"""', "a*n", "an*", "NEAR/2", "^an", "a:n", "a n", "   ", "a.n",
    "ലക്ഷ്മി".upper(), "ക്ഷ്", "\u0d4d\u0d37\u0d4d",
]


def rule(search, terms):
    """The matching rule: every term, A-Z folded, is a substring of the ``search`` column."""
    return all(SEARCH_SEPARATOR not in term and ascii_lower(term) in search for term in terms)


@pytest.fixture(scope="module")
def rows(seeded):
    """``{sub-fest id: {candidate id: search column}}`` of the big festival, and its id."""
    with writable(seeded[0]):
        festival = m.Festival.get(m.Festival.slug == BIG).id
        found = {}
        for sub_fest, candidate, search in (C.select(C.sub_fest, C.id, C.search)
                                            .where(C.festival == festival).tuples()):
            found.setdefault(sub_fest, {})[candidate] = search
    return festival, found


def samples(found):
    """Terms taken from the data: pieces of every length of names and chest numbers (some
    in upper case), whole values, and pairs of them, chosen the same way every run."""
    chooser = random.Random(28)
    values = sorted({value for texts in found.values() for text in texts.values()
                     for value in text.split(SEARCH_SEPARATOR)})
    terms = []
    for value in chooser.sample(values, min(60, len(values))):
        for length in (1, 2, 3, 4, 7):
            start = chooser.randrange(max(1, len(value) - length + 1))
            piece = value[start:start + length]
            terms.append([piece.upper() if chooser.random() < 0.3 else piece])
        terms.append([value])
    singles = [t[0] for t in terms]
    terms += [[chooser.choice(singles), chooser.choice(singles)] for _ in range(40)]
    return terms


def found_by_reader(festival, sub_fest, terms):
    page = candidates.list_candidates(festival, sub_fest, 1, 500, "name", "asc", search=terms)
    # the other sort, both directions, in pages: a page that is not the last has its total
    # counted (on the index alone), the last one not
    by_chest_no = candidates.list_candidates(festival, sub_fest, 1, 500, "chestNo", "desc", search=terms)
    first = candidates.list_candidates(festival, sub_fest, 1, 3, "chestNo", "desc", search=terms)
    second = candidates.list_candidates(festival, sub_fest, 2, 3, "chestNo", "desc", search=terms)
    assert first.total == second.total == by_chest_no.total == page.total, terms
    assert [*first.items, *second.items] == by_chest_no.items[:6], terms
    assert sorted(by_chest_no.items) == sorted(page.items), terms
    # in the lists' own order: the sort key, then the id, as the sort indexes give it
    for sort_by, order, found in (("name", "asc", page), ("chestNo", "desc", by_chest_no)):
        plain = (Select(C).where(*equals(C.festival, festival)).where(*equals(C.sub_fest, sub_fest))
                 .where(*contains_all(C.search, terms)).sort(candidates.CANDIDATE_SORTS, sort_by, order, C.id)
                 .rows(C.body))
        assert found.items == plain, (terms, sort_by, order)
    return page.total, sorted(C.id.python_value(row) for row in _ids(festival, sub_fest, terms))


def _ids(festival, sub_fest, terms):
    # The same reader's conditions, for the ids (a page holds bodies): a second reader check.
    return [row[0] for row in (Select(C).where(*equals(C.festival, festival)).where(*equals(C.sub_fest, sub_fest))
                               .filter(candidates.candidate_filters(festival), {"search": terms})
                               .rows(C.id))]


@pytest.mark.skipif(ON_POSTGRES, reason="SQLite's FTS5 table")
def test_the_database_has_the_text_index(seeded):
    with writable(seeded[0]) as db:
        assert has_text_index(db)


def test_the_index_finds_what_the_rule_finds(seeded, rows):
    festival, found = rows
    cases = samples(found) + [[term] for term in SPECIAL] + [["an", "ANU"], ["10", "a"], ['"', "%"],
                                                             ["ANU", "%%%"], ["ÉCO", "an"], ["nu", "é", "anu"]]
    checked = matched = 0
    with writable(seeded[0]):
        for sub_fest, texts in found.items():
            for terms in cases:
                expected = sorted(i for i, search in texts.items() if rule(search, terms))
                total, ids = found_by_reader(festival, sub_fest, terms)
                assert (total, ids) == (len(expected), expected), (sub_fest, terms)
                # and the plain LIKE of every term, the reader's rule before the index, agrees
                plain = (Select(C).where(*equals(C.festival, festival)).where(*equals(C.sub_fest, sub_fest))
                         .where(*contains_all(C.search, terms)).rows(C.id))
                assert sorted(C.id.python_value(i) for (i,) in plain) == expected, (sub_fest, terms)
                checked += 1
                matched += bool(expected)
    assert checked > 1000 and matched > checked // 3  # many strings, and most of them find someone


@pytest.mark.skipif(not ON_POSTGRES, reason="PostgreSQL's trigram index")
def test_postgres_has_a_trigram_index_on_the_search_column(seeded):
    with writable(seeded[0]) as db:
        if not db.execute_sql("SELECT 1 FROM pg_available_extensions WHERE name = 'pg_trgm'").fetchone():
            pytest.skip("this PostgreSQL has no pg_trgm: search reads without the index")
        [(definition,)] = db.execute_sql("SELECT indexdef FROM pg_indexes WHERE indexname = %s", (INDEX,)).fetchall()
    assert has_text_index(db) and "gin" in definition and "gin_trgm_ops" in definition


def test_without_pg_trgm_the_index_is_left_out_and_said_so(caplog):
    """A PostgreSQL role that may not create the extension (or a server without it): the
    tables are made without the index, with a warning, and search reads as before."""
    import contextlib

    import peewee

    from db.compiled.text_index import create_text_index

    class Refusing(peewee.PostgresqlDatabase):
        statements = []

        def execute_sql(self, sql, params=None, *args, **kwargs):
            self.statements.append(sql)
            raise peewee.ProgrammingError('permission denied to create extension "pg_trgm"\nHINT: superuser')

        def atomic(self, *args, **kwargs):
            return contextlib.nullcontext()

    with caplog.at_level("WARNING", logger="db.compiled.text_index"):
        assert create_text_index(Refusing("nowhere")) is False
    assert Refusing.statements == ["CREATE EXTENSION IF NOT EXISTS pg_trgm"]
    assert [r.getMessage() for r in caplog.records] == [
        'no trigram index for candidate search (pg_trgm: permission denied to create extension "pg_trgm"); '
        "search reads the sub-fest's candidates instead"]


@pytest.mark.skipif(ON_POSTGRES, reason="SQLite's FTS5 table")
@pytest.mark.parametrize("terms, decided_by_like", [
    (["anu"], []), (["ANU", "nai"], []), (['"nai', "%%%"], []),
    (["anu", "1"], ["1"]), (["an", "ANU", "é"], ["an", "é"]), (["an"], ["an"]), (["a", "%"], ["a", "%"]),
])
def test_terms_of_3_characters_or_more_are_decided_by_the_index_alone(seeded, terms, decided_by_like):
    """The index's phrase is the rule for a term it can find (the comparison above proves it
    on the data): such a term has no ``LIKE`` re-check, so a common word does not read and
    re-check every row it finds; a shorter term is still matched by ``LIKE``."""
    from db.read.sql import indexed_contains_all

    with writable(seeded[0]):
        sql, params = indexed_contains_all(C.search, terms, INDEX)
    indexed = any(len(t) >= 3 for t in terms)
    assert (INDEX in sql) == indexed
    assert params[indexed:] == contains_all(C.search, decided_by_like)[1]
    assert sql.count("LIKE") == len(decided_by_like)


def _everyone_found(festival, found_rows, cases):
    """Every case on every sub-fest, by the reader, against the rule on the compiled rows."""
    for sub_fest, texts in found_rows.items():
        for terms in cases:
            expected = sorted(i for i, search in texts.items() if rule(search, terms))
            assert found_by_reader(festival, sub_fest, terms) == (len(expected), expected), (sub_fest, terms)


def _compiled(festival):
    found = {}
    for sub_fest, candidate, search in C.select(C.sub_fest, C.id, C.search).where(C.festival == festival).tuples():
        found.setdefault(sub_fest, {})[candidate] = search
    return found


def query(db):
    """``execute(sql, params)`` on the Peewee database ``db``, ``?`` its parameter marker."""
    return lambda sql, params=(): db.execute_sql(sql.replace("?", db.param), params)


def _hex(value):
    """A stored uuid as hex: SQLite keeps the hex, PostgreSQL answers its own form."""
    return uuid.UUID(str(value)).hex


def kept_counts_are_the_rules(execute, found_rows, festival):
    """The counts the index keeps for ``festival`` (``execute(sql, params)``: on the
    database holding it, ``?`` the parameter marker) are the common terms of each sub-fest
    (``text_index.common_terms``), each with the number of candidates the rule finds;
    returns how many there are."""
    from db.compiled.text_index import COUNTS, SCOPES, common_terms

    held = {}
    for sub_fest, term, total in execute(
            f'SELECT s.sub_fest, c.term, c.total FROM "{COUNTS}" c JOIN "{SCOPES}" s ON s.number = c.scope '
            f'WHERE s.festival = ?', (C.festival.db_value(festival),)).fetchall():
        held.setdefault(_hex(sub_fest), {})[term] = total
    expected = {_hex(sub_fest): {term: sum(rule(search, [term]) for search in texts.values())
                                 for term in common_terms(texts.values())}
                for sub_fest, texts in found_rows.items()}
    assert held == {sub_fest: terms for sub_fest, terms in expected.items() if terms}
    return sum(len(terms) for terms in held.values())


@pytest.fixture
def every_beginning_kept(monkeypatch):
    """Every word beginning found at least twice in a sub-fest is kept, not only common ones."""
    from db.compiled import text_index

    monkeypatch.setattr(text_index, "KEPT_FROM", 2)


def _keep_again(db):
    """Count again with the ``KEPT_FROM`` of now: the kept counts dropped (on PostgreSQL the
    search rows too), ``create_tables`` (``festival-api init``) makes the index again."""
    from db.compiled.postgres_search import TABLES
    from db.compiled.tables import create_tables
    from db.compiled.text_index import COUNTS

    for table in TABLES if ON_POSTGRES else (COUNTS,):
        db.execute_sql(f'DROP TABLE "{table}"')
    create_tables(db)


def test_the_index_keeps_the_rules_count_of_each_common_term(seeded, rows):
    festival, found = rows
    with writable(seeded[0]) as db:
        assert kept_counts_are_the_rules(query(db), found, festival) > 0


def _statements(monkeypatch):
    """The statements ``list_candidates`` runs from now on: ``[(sql, params)]``."""
    ran = []
    real_run = candidates.run

    def run(sql, params):
        ran.append((sql, list(params)))
        return real_run(sql, params)

    monkeypatch.setattr(candidates, "run", run)
    return ran


@pytest.mark.skipif(ON_POSTGRES, reason="SQLite's FTS5 table")
def test_a_total_read_from_the_kept_counts_is_the_rules(seeded, tmp_path, every_beginning_kept, monkeypatch):
    """With every word beginning kept, the searches of the comparison above that a kept
    count answers (one term, a full page: ``found_by_reader``'s pages of 3) get the
    rule's total; and a kept count is read, not counted, when there is one."""
    from conftest import database_copy

    ran = _statements(monkeypatch)
    with database_copy(seeded[0], tmp_path) as url, writable(url) as db:
        _keep_again(db)
        festival = m.Festival.get(m.Festival.slug == BIG).id
        found = _compiled(festival)
        assert kept_counts_are_the_rules(query(db), found, festival) > 500
        _everyone_found(festival, found, samples(found))
        kept = {term for (term,) in db.execute_sql('SELECT term FROM "public_candidate_search_counts"').fetchall()}
    assert sum(sql.startswith("SELECT coalesce") for sql, _ in ran) > 200
    assert kept & {ascii_lower(terms[0]) for terms in samples(found) if len(terms) == 1}


def test_the_index_follows_every_compile_and_writes_again_only_the_sub_fests_that_changed(
        seeded, tmp_path, every_beginning_kept):
    """A compile that renames a candidate, one that removes a candidate and one that changes
    nothing the index holds: each sub-fest's rows in the index are those of its compiled
    candidates, in both sorts, and a sub-fest whose candidates did not change keeps its
    rows as they were. The kept counts follow each compile too, and those of a candidate
    added or hidden."""
    from conftest import database_copy

    from db.compiled.text_index import SCOPES
    from db.compiler import compile_festival

    with database_copy(seeded[0], tmp_path) as url, writable(url) as db:
        _keep_again(db)
        festival = m.Festival.get(m.Festival.slug == BIG).id
        entry = (m.SubFestCandidate.select().join(m.SubFest).where(m.SubFest.festival == festival)
                 .order_by(m.SubFestCandidate.id).first())
        renamed_sub_fest = entry.sub_fest_id

        def held():
            return {_hex(sub_fest): digest for sub_fest, digest in
                    db.execute_sql(f'SELECT sub_fest, digest FROM "{SCOPES}"').fetchall()}

        def kept(term):
            return query(db)('SELECT c.total FROM "public_candidate_search_counts" c JOIN '
                             f'"{SCOPES}" s ON s.number = c.scope WHERE s.sub_fest = ? AND c.term = ?',
                             (C.sub_fest.db_value(renamed_sub_fest), term)).fetchone()

        before = held()
        compile_festival(festival)  # nothing changed
        assert held() == before
        kept_counts_are_the_rules(query(db), _compiled(festival), festival)
        common = next(word for word in ("nair", "krishna", "abhinav", "anu")
                      if (kept(word) or (0,))[0] >= 3)
        was = kept(common)[0]
        m.Candidate.update(name=f"Zyxwv Qopr {common.title()}").where(m.Candidate.id == entry.candidate_id).execute()
        compile_festival(festival)
        after = held()
        changed = {sub_fest for sub_fest in after if after[sub_fest] != before.get(sub_fest)}
        assert _hex(renamed_sub_fest) in changed
        assert len(changed) < len(after)  # the others kept their rows
        found = _compiled(festival)
        assert kept_counts_are_the_rules(query(db), found, festival)
        assert found_by_reader(festival, renamed_sub_fest, ["ZYXWV q"])[0] == 1
        _everyone_found(festival, found, [["zyxwv"], ["qopr"], ["wv qo"], ["abh"], ["nai"], ["an"], [common]])
        # a candidate added, and one hidden
        added = m.Candidate.create(festival=festival, name=f"{common.title()} Added")
        m.SubFestCandidate.create(sub_fest=renamed_sub_fest, candidate=added, chest_no="99999")
        hidden = (m.SubFestCandidate.select().join(m.Candidate)
                  .where((m.SubFestCandidate.sub_fest == renamed_sub_fest) & (m.Candidate.name.contains(common))
                         & (m.SubFestCandidate.id != entry.id)).first())
        m.Candidate.update(is_public=False).where(m.Candidate.id == hidden.candidate_id).execute()
        compile_festival(festival)
        found = _compiled(festival)
        assert kept_counts_are_the_rules(query(db), found, festival)
        assert kept(common)[0] == found_by_reader(festival, renamed_sub_fest, [common])[0] == was + 1 + 1 - 1
        m.SubFestCandidate.delete().where(m.SubFestCandidate.id == entry.id).execute()
        compile_festival(festival)
        assert found_by_reader(festival, renamed_sub_fest, ["zyxwv"]) == (0, [])
        found = _compiled(festival)
        assert kept_counts_are_the_rules(query(db), found, festival)
        _everyone_found(festival, found, [["abh"], ["nai"], ["kri", "na"], [common], [common[:2]]])


@pytest.mark.skipif(ON_POSTGRES, reason="SQLite's FTS5 table")
def test_init_replaces_the_index_of_earlier_versions(seeded, tmp_path):
    """A database made by an earlier version has an FTS5 table of the candidates' own rowids,
    kept by triggers: ``create_tables`` (``festival-api init``) drops it and its triggers and
    fills the sub-fest-scoped index from the compiled rows."""
    from conftest import database_copy

    from db.compiled.tables import create_tables
    from db.compiled.text_index import PAIRS, SCOPES

    earlier = (
        f'DROP TABLE "{INDEX}"', f'DROP TABLE "{SCOPES}"', f'DROP TABLE "{PAIRS}"',
        f"CREATE VIRTUAL TABLE \"{INDEX}\" USING fts5(search, content='public_candidate', "
        "tokenize='trigram case_sensitive 1')",
        f'CREATE TRIGGER "{INDEX}_insert" AFTER INSERT ON "public_candidate" BEGIN '
        f'INSERT INTO "{INDEX}"(rowid, search) VALUES (new.rowid, new.search); END',
        f'CREATE TRIGGER "{INDEX}_delete" AFTER DELETE ON "public_candidate" BEGIN '
        f"INSERT INTO \"{INDEX}\"(\"{INDEX}\", rowid, search) VALUES ('delete', old.rowid, old.search); END",
        f'CREATE TRIGGER "{INDEX}_update" AFTER UPDATE ON "public_candidate" BEGIN '
        f"INSERT INTO \"{INDEX}\"(\"{INDEX}\", rowid, search) VALUES ('delete', old.rowid, old.search); "
        f'INSERT INTO "{INDEX}"(rowid, search) VALUES (new.rowid, new.search); END',
        f"INSERT INTO \"{INDEX}\"(\"{INDEX}\") VALUES ('rebuild')",
    )
    with database_copy(seeded[0], tmp_path) as url, writable(url) as db:
        for sql in earlier:
            db.execute_sql(sql)
        create_tables(db)
        assert db.execute_sql("SELECT name FROM sqlite_master WHERE type = 'trigger' AND name LIKE ?",
                              (f"{INDEX}%",)).fetchall() == []
        festival = m.Festival.get(m.Festival.slug == BIG).id
        _everyone_found(festival, _compiled(festival), [["abh"], ["nai"], ["ANU", "1"], ["an"], ["കു"]])
        create_tables(db)  # again: nothing to replace, nothing written twice
        assert db.execute_sql(f'SELECT COUNT(*) FROM "{INDEX}"').fetchone()[0] == 2 * C.select().count()
        # an index made before the index of pairs of characters: both are written again
        db.execute_sql(f'DROP TABLE "{PAIRS}"')
        create_tables(db)
        assert db.execute_sql(f'SELECT COUNT(*) FROM "{PAIRS}"').fetchone()[0] == 2 * C.select().count()
        _everyone_found(festival, _compiled(festival), [["v."], ["an", "ab"], ["abh"], ["കു"]])


@pytest.mark.skipif(not ON_POSTGRES, reason="PostgreSQL's search rows")
@pytest.mark.parametrize("match_cost", [0, 10 ** 9], ids=["through the trigram index", "walked"])
def test_on_postgres_both_ways_to_a_page_find_what_the_rule_finds(seeded, tmp_path, every_beginning_kept,
                                                                  monkeypatch, match_cost):
    """Without the local copy a search alone reads the sub-fest's search rows
    (``db/compiled/postgres_search.py``): a kept term's page walks the sort's entries, or is
    found through the trigram index, as its kept count and ``MATCH_COST`` decide. Either way
    the answer is the rule's, in every sort and page; here every word beginning found twice
    is kept, and each test sends every kept term one way."""
    from conftest import database_copy

    from db.compiled import postgres_search

    monkeypatch.setattr(postgres_search, "MATCH_COST", match_cost)
    ran = _statements(monkeypatch)
    with database_copy(seeded[0], tmp_path) as url, writable(url) as db:
        _keep_again(db)
        festival = m.Festival.get(m.Festival.slug == BIG).id
        found = _compiled(festival)
        _everyone_found(festival, found, samples(found) + [["an"], ["v."], ["kri", "na"], ["കു"]])
    pages = [(sql, params) for sql, params in ran if "JOIN" in sql]
    walked = [params[1:-2] for sql, params in pages if "scope = ?" in sql]  # the terms, between scope and LIMIT
    looked_up = [sql for sql, _ in pages if "scope + 0 = ?" in sql]
    assert len(walked) > 100 and len(looked_up) > 100 and len(walked) + len(looked_up) == len(pages)
    if match_cost:  # only a term not kept is looked up; kept ones of 3 letters or more walk
        assert all("count(*) OVER ()" in sql for sql in looked_up)
        assert sum(any(len(term) >= 3 for term in terms) for terms in walked) > 100
    else:  # only terms too short for a trigram walk
        assert all(len(term) < 3 for terms in walked for term in terms)


@pytest.mark.skipif(not ON_POSTGRES, reason="PostgreSQL's search rows")
def test_on_postgres_a_walk_reads_the_sorts_index_and_a_rare_term_the_trigram_index(seeded, every_beginning_kept,
                                                                                    monkeypatch, tmp_path):
    """The plans the two ways are written for: a walk is an index-only scan of its sort's
    index, stopped by the page's LIMIT, its terms checked on the entry; a term not kept is a
    bitmap scan of the trigram index. Neither reads a candidate's wide row except the page's
    own, by primary key. The bundled festival's sub-fests are small enough for the planner
    to read them whole, or by a bitmap of the sort's index, so those are priced out (at 20
    times the size it makes these plans itself: docs/performance.md); the rows are vacuumed
    first, as ``festival-api import`` does."""

    from conftest import database_copy

    from db.compiled import postgres_search

    ran = _statements(monkeypatch)
    with database_copy(seeded[0], tmp_path) as url, writable(url) as db:
        _keep_again(db)
        db.execute_sql(f'VACUUM (ANALYZE) "{postgres_search.ROWS}"')
        festival = m.Festival.get(m.Festival.slug == BIG).id
        sub_fest = max(_compiled(festival).items(), key=lambda item: len(item[1]))[0]
        kept = db.execute_sql(f'SELECT c.term FROM "{postgres_search.COUNTS}" c JOIN "{postgres_search.SCOPES}" s '
                              "ON s.number = c.scope WHERE s.sub_fest = %s AND length(c.term) >= 3 "
                              "ORDER BY c.total DESC, c.term LIMIT 1", (C.sub_fest.db_value(sub_fest),)).fetchone()[0]
        for sort_by in ("chestNo", "name"):
            for terms in ([kept], ["zzqx"]):
                monkeypatch.setattr(postgres_search, "MATCH_COST", 10 ** 9 if terms == [kept] else 0)
                candidates.list_candidates(festival, sub_fest, 1, 2, sort_by, "asc", search=terms)
                sql, params = next(statement for statement in reversed(ran) if "JOIN" in statement[0])
                with db.atomic():
                    db.execute_sql("SET LOCAL enable_seqscan = off")
                    if terms == [kept]:
                        db.execute_sql("SET LOCAL enable_bitmapscan = off")
                    [(plan,)] = db.execute_sql("EXPLAIN (FORMAT JSON) " + sql.replace("%", "%%").replace("?", "%s"),
                                               params).fetchall()
                nodes = list(_nodes(plan[0]["Plan"]))
                if terms == [kept]:
                    assert ("Index Only Scan", f"public_candidate_search_rows_{sort_by}",
                            postgres_search.ROWS) in nodes, nodes
                else:
                    assert ("Bitmap Index Scan", "public_candidate_search_rows_words", None) in nodes, nodes
                # the candidates' own rows: only the page's, by primary key
                scans = [node for node in nodes if node[2]]
                assert {relation for *_, relation in scans} == {postgres_search.ROWS, "public_candidate"}, scans
                assert [node for node in scans if node[2] == "public_candidate"] == [
                    ("Index Scan", "public_candidate_pkey", "public_candidate")], scans


def _nodes(plan):
    """``(node type, index name, relation name)`` of every node of a PostgreSQL JSON plan."""
    yield plan["Node Type"], plan.get("Index Name"), plan.get("Relation Name")
    for child in plan.get("Plans", ()):
        yield from _nodes(child)


@pytest.mark.skipif(not ON_POSTGRES, reason="PostgreSQL's search rows")
def test_on_postgres_without_the_trigram_index_every_page_walks(seeded, tmp_path, monkeypatch):
    """A database whose role could not create ``pg_trgm`` has the search rows without their
    trigram index: every page walks the sort's entries, and the answers are the rule's."""
    from conftest import database_copy

    from db.compiled import postgres_search

    monkeypatch.setattr(candidates, "_SEARCH_ROWS", {})
    ran = _statements(monkeypatch)
    with database_copy(seeded[0], tmp_path) as url, writable(url) as db:
        db.execute_sql(f'DROP INDEX "{postgres_search.TRIGRAMS}"')
        festival = m.Festival.get(m.Festival.slug == BIG).id
        found = _compiled(festival)
        _everyone_found(festival, found, samples(found)[:60] + [["an"], ["kri", "na"]])
    pages = [sql for sql, _ in ran if "JOIN" in sql]
    assert pages and not any("scope + 0" in sql for sql in pages)


@pytest.mark.skipif(not ON_POSTGRES, reason="PostgreSQL's search rows")
def test_on_postgres_a_database_not_yet_upgraded_searches_as_before(seeded, tmp_path, monkeypatch):
    """Before ``festival-api init`` has made the search rows of a database an earlier
    version made, a search reads the candidates' rows with ``LIKE``, with the rule's
    answers; ``init`` makes and fills them."""
    from conftest import database_copy
    from db.compiled.postgres_search import ROWS, TABLES
    from db.compiled.tables import create_tables

    monkeypatch.setattr(candidates, "_SEARCH_ROWS", {})
    ran = _statements(monkeypatch)
    with database_copy(seeded[0], tmp_path) as url, writable(url) as db:
        for table in TABLES:
            db.execute_sql(f'DROP TABLE "{table}"')
        festival = m.Festival.get(m.Festival.slug == BIG).id
        found = _compiled(festival)
        _everyone_found(festival, found, samples(found)[:30])
        assert not any(ROWS in sql for sql, _ in ran)
        create_tables(db)
        candidates._SEARCH_ROWS.clear()
        _everyone_found(festival, found, samples(found)[:30])
        assert any(ROWS in sql for sql, _ in ran)
