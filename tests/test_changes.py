"""/changes: what became different in the public data after a revision, visibility included."""
import copy
import datetime
import re

import pytest

from conftest import writable
from seed.pipeline.write.importer import import_fixture
from tiny_festival import day, tiny, tiny_api, tiny_festival  # noqa: F401 (tiny: fixture)


def result_row(data, names, key):
    return next(r for r in data["results"] if r["id"] == names[key])


@pytest.fixture
def republished(seeded, tmp_path):
    """The tiny festival, then re-imported with P5's result published: ``(client, names, before)``."""
    data, names = tiny_festival()
    with tiny_api(seeded[0], tmp_path, data) as (client, url):
        before = client.ok("/changes", sinceRevision=0)["context"]["data"]["revision"]
        changed = copy.deepcopy(data)
        result_row(changed, names, "result-P5-Bala").update(is_published=True, published_at=day(16))
        # A hidden programme's result changes too: nobody may learn of it.
        result_row(changed, names, "result-PH-Anu").update(points=1000, position_points=999)
        with writable(url):
            import_fixture(changed)
        yield client, names, before, url, changed


def test_a_published_result_lists_its_programme_and_the_leaderboards_it_moves(republished):
    client, names, before, _, _ = republished
    body = client.ok("/changes", sinceRevision=before)
    changes = {(c["kind"], c["id"]): c for c in body["data"]}
    assert changes[("programme", names["P5"])]["action"] == "results"
    assert changes[("programme", names["P5"])]["revision"] == before + 1
    assert changes[("leaderboard", names["candidates"])]["action"] == "changed"
    assert body["context"]["data"]["revision"] == before + 1
    assert {c["revision"] for c in body["data"]} == {before + 1}


def test_nothing_hidden_is_listed_or_named(republished):
    client, names, before, _, _ = republished
    response = client.get("/changes", sinceRevision=0, limit=500)
    assert response.status_code == 200
    text = response.get_data(as_text=True)
    for hidden in ("PH", "hidden-sub", "result-PH-Anu", "reg-PH-Anu"):
        assert names[hidden] not in text


def test_since_the_current_revision_nothing_is_listed(republished):
    client, _, before, _, _ = republished
    body = client.ok("/changes", sinceRevision=before + 1)
    assert body["data"] == [] and body["meta"]["total"] == 0


def test_a_programme_that_stops_being_public_is_removed(republished):
    client, names, _, url, changed = republished
    current = client.ok("/changes", sinceRevision=0)["context"]["data"]["revision"]
    hidden = copy.deepcopy(changed)
    next(p for p in hidden["subFestProgrammes"] if p["id"] == names["P3"])["is_public"] = False
    with writable(url):
        import_fixture(hidden, allow_withdrawals=True)  # a published programme goes: said so
    body = client.ok("/changes", sinceRevision=current, kinds="programme")
    assert [(c["id"], c["action"]) for c in body["data"]] == [(names["P3"], "removed")]


def test_newest_first_and_paged(republished):
    client, _, _, _, _ = republished
    everything = client.all("/changes", sinceRevision=0)
    revisions = [c["revision"] for c in everything]
    assert revisions == sorted(revisions, reverse=True) and len(revisions) > 3
    first = client.ok("/changes", sinceRevision=0, limit=2, page=1)
    assert first["meta"]["total"] == len(everything) and len(first["data"]) == 2


@pytest.mark.parametrize("params, field", [
    ({}, "sinceRevision"),
    ({"sinceRevision": "-1"}, "sinceRevision"),
    ({"sinceRevision": "one"}, "sinceRevision"),
    ({"sinceRevision": "0", "kinds": "bogus"}, "kinds"),
])
def test_bad_parameters_are_400(tiny, params, field):
    client, _ = tiny
    response = client.get("/changes", **params)
    assert response.status_code == 400
    assert field in response.get_json()["errors"]["query"]


def test_a_teams_own_result_lists_its_programme_and_its_teams_leaderboards_only(seeded, tmp_path, monkeypatch):
    from db import clock
    from test_toppers import add_team_entry

    # one computation time for both imports: a leaderboard is listed when its entries move
    monkeypatch.setattr(clock, "utcnow", lambda: datetime.datetime(2026, 1, 30, 12, 0))
    data, names = tiny_festival()
    with tiny_api(seeded[0], tmp_path, data) as (client, url):
        before = client.ok("/changes", sinceRevision=0)["context"]["data"]["revision"]
        changed = copy.deepcopy(data)
        add_team_entry(changed, names, "R1-G1", "G1", "R1", 6, kind="group")
        add_team_entry(changed, names, "Hidden-P3", "P3", "HiddenTeam", 50)  # moves nothing public
        with writable(url):
            import_fixture(changed)
        body = client.ok("/changes", sinceRevision=before, limit=500)
    assert sorted((c["kind"], c["id"], c["action"]) for c in body["data"]) == sorted([
        ("programme", names["G1"], "results"),
        *(("leaderboard", names[key], "changed") for key in ("houses", "departments", "stage-houses"))])


def _as_utf8(text):
    """Stored JSON as the compiler wrote it before it was ASCII: ``\\uXXXX`` escapes of
    characters beyond ASCII written as the characters."""
    def character(match):
        code = int(match.group(1), 16)
        return chr(code) if code >= 0x80 and not 0xD800 <= code <= 0xDFFF else match.group(0)
    return re.sub(r"\\u([0-9a-f]{4})", character, text)


def test_json_compiled_before_it_was_ascii_is_no_change(seeded, tmp_path):
    """An upgrade alone lists nothing: the change log's digests read the stored JSON of an
    older compile (UTF-8) and of this one (ASCII) as the same."""
    from conftest import BIG, database_copy
    from db.compiled.tables import PublicNews, PublicProgramme
    from db.compiler.changes import snapshot
    from db.source import models as m

    with database_copy(seeded[0], tmp_path) as url, writable(url):
        festival = m.Festival.get(m.Festival.slug == BIG).id
        before = snapshot(festival)
        rewritten = 0
        for model, columns in ((PublicProgramme, ("body", "results")), (PublicNews, ("body",))):
            for row in model.select().where(model.festival == festival):
                old = {name: _as_utf8(getattr(row, name)) for name in columns}
                if any(old[name] != getattr(row, name) for name in columns):
                    model.update(**old).where(model.id == row.id).execute()
                    rewritten += 1
        assert rewritten > 10  # Malayalam names and titles, stored escaped, now stored as UTF-8
        assert snapshot(festival) == before
