"""The fixture document being built: deterministic ids, rows by section, time stamps."""
import datetime as dt
import random
import uuid
from collections import Counter

from seed.pipeline.read.fixture_format import FORMAT_VERSION, SECTIONS

NAMESPACE = uuid.UUID("6f1c3c52-8d3e-5a57-9a51-3c0d2b7f4e10")
# The row kind in an id's readable name, per fixture section.
KINDS = {
    "subFests": "sub-fest", "categories": "category", "teams": "team", "sections": "section",
    "venues": "venue", "judges": "judge", "programmeCollections": "collection",
    "positionCriteria": "position-criteria", "gradeCriteria": "grade-criteria",
    "programmes": "programme", "subFestProgrammes": "sub-fest-programme",
    "schedules": "schedule", "candidates": "candidate", "subFestCandidates": "sub-fest-candidate",
    "registrations": "registration", "results": "result",
    "topperPlaceholders": "topper-placeholder", "websitePages": "website-page", "news": "news",
    "downloads": "download", "galleryAlbums": "gallery-album", "galleryImages": "gallery-image",
}

IST = dt.timedelta(hours=5, minutes=30)


def ts(value):
    """ISO 8601 in UTC with an explicit ``Z``."""
    return value.strftime("%Y-%m-%dT%H:%M:%SZ")


def ist(day, hour, minute=0):
    """A wall-clock time in India as a UTC timestamp string."""
    return ts(dt.datetime.combine(day, dt.time(hour, minute)) - IST)


class Fixture:
    def __init__(self, slug, seed, private):
        self.slug = slug
        self.rng = random.Random(seed)
        self.private = private  # (admission prefix, phone offset, admission year)
        self.data = {"formatVersion": FORMAT_VERSION, "festival": {}}
        self.data.update({section.key: [] for section in SECTIONS})
        self._serial = Counter()

    def new_id(self, kind):
        self._serial[kind] += 1
        return str(uuid.uuid5(NAMESPACE, f"{self.slug}/{kind}/{self._serial[kind]}"))

    def add(self, section, **fields):
        row = {"id": self.new_id(KINDS[section]), **fields}
        self.data[section].append(row)
        return row

    def festival(self, **fields):
        self.data["festival"] = {"id": self.new_id("festival"), "slug": self.slug, **fields}


def hide(name, spec):
    return f"HIDDEN {name}" if spec.hidden else name
