"""The visibility rules restated over the fixture JSON, to compute what the API must return.

These are written independently of ``db/source/visibility.py`` on purpose: a test compares the
API's answer with what these say the fixture makes visible.
"""
import datetime
import json

PRIVATE_FIELD_NAMES = (
    "email", "phone", "dateOfBirth", "date_of_birth", "admissionNumber", "admission_number",
    "admissionDetails", "admission_details", "admNo",
)


def parse_time(value):
    if value is None:
        return None
    moment = datetime.datetime.fromisoformat(value)
    if moment.tzinfo is not None:
        moment = moment.astimezone(datetime.timezone.utc).replace(tzinfo=None)
    return moment


def now_utc():
    return datetime.datetime.now(datetime.timezone.utc).replace(tzinfo=None)


def flag(row, name, default=True):
    return row.get(name, default)


def visible_news(data, now=None):
    now = now or now_utc()
    return [
        n for n in data.get("news", [])
        if n.get("status", "draft") == "published" and flag(n, "is_public")
        and not flag(n, "is_deleted", False)
        and n.get("published_at") and parse_time(n["published_at"]) <= now
    ]


def visible_downloads(data):
    return [d for d in data.get("downloads", []) if flag(d, "is_public")]


def visible_albums(data):
    return [a for a in data.get("galleryAlbums", []) if flag(a, "is_public")]


def visible_images(data):
    albums = {a["id"] for a in visible_albums(data)}
    return [i for i in data.get("galleryImages", []) if flag(i, "is_public") and i["album"] in albums]


def visible_sub_fests(data):
    return [s for s in data.get("subFests", []) if flag(s, "is_active") and flag(s, "is_public")]


def visible_programme_ids(data):
    sub_fests = {s["id"] for s in visible_sub_fests(data)}
    masters = {p["id"] for p in data.get("programmes", []) if flag(p, "is_active") and flag(p, "is_public")}
    return {
        p["id"] for p in data.get("subFestProgrammes", [])
        if flag(p, "is_active") and flag(p, "is_public")
        and p["sub_fest"] in sub_fests and p["programme"] in masters
    }


def visible_programmes_with_results(data, sub_fest_slug):
    """The visible programmes of the sub-fest ``sub_fest_slug`` that have results, in the
    file's order, and every programme's results: ``([programme], {programme id: [result]})``."""
    visible = visible_programme_ids(data)
    sub_fest = next(s["id"] for s in data["subFests"] if s["slug"] == sub_fest_slug)
    results = {}
    for result in data["results"]:
        results.setdefault(result["sub_fest_programme"], []).append(result)
    programmes = [p for p in data["subFestProgrammes"]
                  if p["sub_fest"] == sub_fest and p["id"] in visible and results.get(p["id"])]
    return programmes, results


def visible_category_ids(data):
    sub_fests = {s["id"] for s in visible_sub_fests(data)}
    return {
        c["id"] for c in data.get("categories", [])
        if flag(c, "is_active") and flag(c, "is_public") and c["sub_fest"] in sub_fests
    }


def private_values(data):
    """Every private candidate value in the fixture, as strings to grep response bodies for."""
    values = set()
    for candidate in data.get("candidates", []):
        for name in ("email", "phone", "date_of_birth", "admission_number", "admission_details"):
            if candidate.get(name):
                values.add(str(candidate[name]))
                # as JSON answers write it: other characters than ASCII as \u escapes
                values.add(json.dumps(str(candidate[name]))[1:-1])
    return values


def publication(slug, programme, results, at):
    """The update (``festival-api import --update``) that publishes ``programme``'s ``results``
    at ``at`` (an ISO time) in the festival ``slug``."""
    return {"formatVersion": 1, "festival": {"slug": slug},
            "subFestProgrammes": [{"id": programme["id"], "status": "result_published", "published_at": at}],
            "results": [{"id": r["id"], "is_published": True, "published_at": at} for r in results]}
