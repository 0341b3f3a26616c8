"""``/changes`` items carry, beside each id, the natural keys a site fetches the record by:
a programme's code and sub-fest slug, a leaderboard's label and sub-fest slug, the title of
a news item or download, a gallery image's title and album title, a candidate's chest number
and sub-fest slug. They come from public answers only: a hidden record is not listed, so none
of its keys is; a removed record keeps the keys it was last shown with, but a candidate (a
person) no longer public is listed by its id alone."""
import copy

import pytest

from conftest import BIG, ON_POSTGRES, writable
from seed.pipeline.write.importer import import_fixture
from tiny_festival import day, tiny_api, tiny_festival

KEY_FIELDS = ("subFestSlug", "programCode", "placeholderLabel", "title", "albumTitle", "chestNo")
# kind -> the fields that have a value (the others are null)
KEYS_OF = {
    "programme": {"subFestSlug", "programCode"},
    "leaderboard": {"subFestSlug", "placeholderLabel"},
    "news": {"title"},
    "download": {"title"},
    "gallery-image": {"title", "albumTitle"},
    "candidate": {"subFestSlug", "chestNo"},
}


@pytest.fixture(scope="module")
def everything(api):
    """Every change of the big festival since it was imported: every record, added."""
    return api.all("/changes", sinceRevision=0)


def test_every_item_has_every_key_field(everything):
    assert {c["kind"] for c in everything} == set(KEYS_OF)
    for change in everything:
        assert set(KEY_FIELDS) <= set(change)
        given = {name for name in KEY_FIELDS if change[name] is not None}
        # an image's title may be null; every other key of its kind is there
        assert given == KEYS_OF[change["kind"]] or (change["kind"] == "gallery-image" and given == {"albumTitle"})


@pytest.mark.parametrize("kind", sorted(KEYS_OF))
def test_the_keys_fetch_the_record_the_id_names(api, everything, kind):
    """A site can fetch each listed record by its keys alone, and gets the record of the id."""
    changes = [c for c in everything if c["kind"] == kind]
    assert changes
    for change in changes:
        if kind == "programme":
            found = api.ok("/programme-result", programCode=change["programCode"], subFestSlug=change["subFestSlug"])
            assert found["programme"]["id"] == change["id"]
            assert found["context"]["subFest"]["id"] == change["subFestId"]
        elif kind == "leaderboard":
            found = api.ok("/toppers", placeholderLabel=change["placeholderLabel"], subFestSlug=change["subFestSlug"])
            assert found["placeholder"]["id"] == change["id"]
        elif kind == "candidate":
            found = api.ok("/candidate-result", chestNo=change["chestNo"], subFestSlug=change["subFestSlug"])
            assert found["candidate"]["id"] == change["id"]
            assert found["context"]["subFest"]["id"] == change["subFestId"]
        elif kind in ("news", "download"):
            found = api.all(f"/{'news' if kind == 'news' else 'downloads'}", search=change["title"])
            assert change["id"] in {item["id"] for item in found if item["title"] == change["title"]}
        else:
            image = next(i for i in api.all("/gallery") if i["id"] == change["id"])
            assert (image["title"], image["album"]["title"]) == (change["title"], change["albumTitle"])


@pytest.fixture
def republished(seeded, tmp_path):
    """The tiny festival, then re-imported with P5's result published and a hidden
    programme's result changed: ``(client, names, revision before, url, data)``."""
    data, names = tiny_festival()
    for registration in data["registrations"]:  # else each import sets it to its own time
        registration["registered_at"] = "2026-01-05T10:00:00Z"
    with tiny_api(seeded[0], tmp_path, data) as (client, url):
        before = client.ok("/changes", sinceRevision=0)["context"]["data"]["revision"]
        changed = copy.deepcopy(data)
        for result in changed["results"]:
            if result["id"] == names["result-P5-Bala"]:
                result.update(is_published=True, published_at=day(16))
            if result["id"] == names["result-PH-Anu"]:
                result.update(points=1000, position_points=999)
        with writable(url):
            import_fixture(changed)
        yield client, names, before, url, changed


def test_a_published_result_names_its_programme_and_leaderboards_by_their_keys(republished):
    client, names, before, _, _ = republished
    changes = {(c["kind"], c["id"]): c for c in client.ok("/changes", sinceRevision=before, limit=500)["data"]}
    programme = changes[("programme", names["P5"])]
    assert (programme["programCode"], programme["subFestSlug"], programme["placeholderLabel"]) == ("P5", "main", None)
    board = changes[("leaderboard", names["candidates"])]
    assert (board["placeholderLabel"], board["subFestSlug"], board["programCode"]) == ("candidates", "main", None)


def test_no_key_of_a_hidden_record_is_listed(republished):
    client, names, _, _, data = republished
    listed = client.all("/changes", sinceRevision=0)
    hidden_codes = {p["code"] for p in data["subFestProgrammes"] if p["id"] == names["PH"]}
    assert hidden_codes == {"PH"}
    assert not [c for c in listed if c["programCode"] in hidden_codes]
    assert not [c for c in listed if c["placeholderLabel"] == "draft"]  # the unpublished leaderboard
    assert "hidden" not in {c["subFestSlug"] for c in listed}  # the hidden sub-fest's slug


def test_a_removed_programme_keeps_the_keys_it_was_last_shown_with(republished):
    client, names, _, url, changed = republished
    current = client.ok("/changes", sinceRevision=0)["context"]["data"]["revision"]
    hidden = copy.deepcopy(changed)
    programme = next(p for p in hidden["subFestProgrammes"] if p["id"] == names["P3"])
    programme.update(is_public=False, code="P3-SECRET")  # a new code it never showed
    with writable(url):
        import_fixture(hidden, allow_withdrawals=True)
    [change] = client.ok("/changes", sinceRevision=current, kinds="programme")["data"]
    assert (change["id"], change["action"], change["programCode"], change["subFestSlug"]) == \
        (names["P3"], "removed", "P3", "main")
    assert "P3-SECRET" not in client.get("/changes", sinceRevision=0, limit=500).get_data(as_text=True)


def test_a_published_result_names_its_candidate_and_no_other(republished):
    """P5's result is Bala's alone: Bala is listed (``results``) by chest number; Anu, whose
    result in a hidden programme changed, is not."""
    client, names, before, _, _ = republished
    listed = client.ok("/changes", sinceRevision=before, kinds="candidate", limit=500)["data"]
    assert [(c["id"], c["action"], c["chestNo"], c["subFestSlug"], c["subFestId"]) for c in listed] == [
        (names["Bala"], "results", "102", "main", names["main"])]


def test_a_candidate_never_public_is_never_named(republished):
    client, names, _, _, _ = republished
    listed = client.all("/changes", sinceRevision=0)
    assert names["Xavier"] not in {c["id"] for c in listed}  # inactive from the start
    assert "106" not in {c["chestNo"] for c in listed}
    assert {c["chestNo"] for c in listed if c["kind"] == "candidate"} == {"101", "102", "103", "104", "105"}


def test_a_candidate_no_longer_public_is_listed_by_its_id_alone(republished):
    client, names, _, url, changed = republished
    current = client.ok("/changes", sinceRevision=0)["context"]["data"]["revision"]
    hidden = copy.deepcopy(changed)
    next(c for c in hidden["candidates"] if c["id"] == names["person-Bala"]).update(is_public=False)
    with writable(url):
        import_fixture(hidden, allow_withdrawals=True)
    listed = client.ok("/changes", sinceRevision=current, kinds="candidate", limit=500)["data"]
    bala = [c for c in listed if c["id"] == names["Bala"]]
    assert [(c["action"], c["chestNo"], c["subFestSlug"]) for c in bala] == [("removed", None, None)]
    assert "102" not in {c["chestNo"] for c in listed}


@pytest.mark.skipif(ON_POSTGRES, reason="drops a column of a SQLite copy")
def test_an_older_database_gets_the_column_and_its_changes_answer_null_keys(fresh_app, keys):
    from conftest import ApiClient
    from db.compiled.tables import create_tables

    app, url = fresh_app
    with writable(url) as db:
        db.execute_sql('ALTER TABLE "public_change" DROP COLUMN "natural_keys"')
        create_tables()  # what `festival-api init` does on an upgrade
        assert "natural_keys" in {c.name for c in db.get_columns("public_change")}
    items = ApiClient(app.test_client(), keys).ok("/changes", key=BIG, sinceRevision=0, limit=5)["data"]
    assert items and all(item[name] is None for item in items for name in KEY_FIELDS)
