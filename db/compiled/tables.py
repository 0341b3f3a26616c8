"""The compiled public read model: what the HTTP service reads.

``db/compiler`` fills these tables from the source tables (``db/source/models.py``) in the same
transaction as an import, seed or toppers recompute; requests read only these (and API
keys and revisions). Every row is public: a record the rules of ``db/source/visibility.py`` hide has
no row here, and nothing it hides is counted in a row that is here.

Each row carries:

- the columns a request filters and sorts on (text sort columns hold
  :func:`db.query.text_sort_key` bytes: the same order as sorting on the text itself);
- ``body``: the entity's public JSON, made by its output schema (``schemas/``), ready to
  send. Values that change with the clock alone are slots in the body, filled at request
  time from instants stored beside it (see :mod:`db.compiled.templates`).

Every list is flat at any size: each of its sort fields has an index that starts with the
list's owner (the festival, and the sub-fest or placeholder) and ends with the tie-breaking
id, so a page is read in order, ``LIMIT`` rows and no more, and never sorted; the total of a
list that no filter narrows is stored (:class:`PublicTotal`), so it is not counted per
request. ``tests/test_query_plans.py`` reads the plan of every list and sort.

No private column exists in any of these tables: no email, phone, date of birth,
admission number or admission details. ``admNoPattern`` (an exact match) compares
``adm_no_digest``, a keyed hash whose key is kept in :class:`PublicSecret`.
"""
import hashlib
import hmac

from peewee import (
    SQL,
    BlobField,
    BooleanField,
    CharField,
    CompositeKey,
    DateField,
    DateTimeField,
    FloatField,
    IntegerField,
    Model,
    TextField,
    UUIDField,
)

from . import kinds
from ..database import database, is_postgres, sqlite_path
from ..query import ascii_lower
from ..source.models import ALL_MODELS, add_missing_columns, create_source_tables
from ..source.revisions import install_revision_notify
from .postgres_search import ROWS, create_postgres_search
from .text_index import SQLITE_TABLES, create_text_index


class Compiled(Model):
    """Base of every compiled table: rows belong to one festival."""

    festival = UUIDField(index=True)

    class Meta:
        database = database
        legacy_table_names = False


def sort_indexes(model, owner, *keys, covering=()):
    """The indexes a list of ``model`` is read in order by: for each sort key (a field, or
    a tuple of fields sorted one after the other), the ``owner`` fields (whose list it is:
    the festival, and the sub-fest or placeholder), the key, the id, and
    the fields of ``covering`` (a filter the index then decides without reading the row).

    A nullable key sorts NULLs last in both directions (``db.read.sql.Select.sort``):
    ``(key IS NULL), key, id``, an expression index per direction.
    """
    tie = model._meta.primary_key
    tie = tie if not isinstance(tie, CompositeKey) else model._meta.fields[tie.field_names[-1]]
    owner = [model._meta.fields[name] for name in owner]
    for key in keys:
        fields = key if isinstance(key, tuple) else (key,)
        name = "_".join([model._meta.table_name, "by", *(f.column_name for f in fields)])
        if covering:
            name = "_".join([name, "with", *(f.column_name for f in covering)])
        nullable = [f for f in fields if f.null]
        if not nullable:
            model.add_index(model.index(*owner, *fields, tie, *covering, name=name))
            continue
        if covering:
            raise ValueError("a covering sort index of a nullable key is not made")
        for direction in ("", " DESC"):
            terms = []
            for f in fields:
                if f.null:
                    terms.append(SQL(f'("{f.column_name}" IS NULL)'))
                terms.append(SQL(f'"{f.column_name}"{direction}'))
            model.add_index(model.index(*owner, *terms, SQL(f'"{tie.column_name}"{direction}'),
                                        name=name + ("_desc" if direction else "")))


class PublicSecret(Model):
    """The key of a festival's keyed hashes (``adm_no_digest``), made once and kept, and
    whether the festival lets ``admNoPattern`` be used (written by every full compile)."""

    festival = UUIDField(primary_key=True)
    hash_key = CharField(max_length=64)  # hex
    admission_number_filter = BooleanField(default=False)

    class Meta:
        database = database
        legacy_table_names = False


def adm_no_digest(hash_key, admission_number):
    """The keyed hash ``adm_no_digest`` holds: HMAC-SHA256 of the A-Z folded number."""
    return hmac.new(bytes.fromhex(hash_key), ascii_lower(admission_number).encode(), hashlib.sha256).hexdigest()


def color_key(code):
    """A colour code as ``PublicTeam.color_code`` holds it and ``colorCode`` compares it: A-Z
    folded, leading ``#`` characters left out (the label rule of docs/api-conventions.md)."""
    return ascii_lower(code).lstrip("#")


class PublicDocument(Compiled):
    """A whole answer's public part that has no list of its own (filter options, albums).

    ``kind`` names the document, ``key`` tells documents of one kind apart (a sub-fest
    slug, or ``""``).
    """

    kind = CharField(max_length=24)
    key = CharField(max_length=120)
    body = TextField()

    class Meta:
        primary_key = CompositeKey("festival", "kind", "key")


class PublicTag(Compiled):
    """A set-valued filter column: item ``item`` of list ``kind`` has ``value``.

    E.g. a programme scheduled at a venue (``programme-venue``), a candidate in a team or
    below it (``candidate-team``), a news item's tag (``news-tag``, A-Z folded).
    """

    kind = CharField(max_length=24)
    item = UUIDField()
    value = CharField(max_length=120)

    class Meta:
        primary_key = CompositeKey("festival", "kind", "value", "item")


class PublicSubFest(Compiled):
    id = UUIDField(primary_key=True)
    slug = CharField(max_length=80)
    search = TextField()
    display_order = IntegerField()
    name_key = BlobField()
    start_date = DateField(null=True)
    summary = TextField()  # the sub-fest in a response's context
    body = TextField()


class PublicProgramme(Compiled):
    id = UUIDField(primary_key=True)
    sub_fest = UUIDField()
    code = CharField(max_length=40)  # A-Z folded, for programCode
    master_code = CharField(max_length=40)  # A-Z folded
    search = TextField()
    category = UUIDField(null=True)  # only when public
    status = CharField(max_length=24)
    program_type = CharField(max_length=20)
    position_criteria = UUIDField(null=True)
    grade_criteria = UUIDField(null=True)
    requires_topic_registration = BooleanField()
    candidate_registration_opens_at = DateTimeField(null=True)
    candidate_registration_closes_at = DateTimeField(null=True)
    topic_registration_opens_at = DateTimeField(null=True)
    topic_registration_closes_at = DateTimeField(null=True)
    has_schedule = BooleanField()
    has_results = BooleanField()
    has_judges = BooleanField()
    has_registrations = BooleanField()
    display_order = IntegerField()
    code_key = BlobField()
    name_key = BlobField()
    status_key = BlobField()
    program_type_key = BlobField()
    published_at = DateTimeField(null=True)
    schedules = TextField()  # [[instant, schedule JSON], ...] for nextSchedule
    body = TextField()
    detail = TextField()
    results = TextField()  # JSON array of the published public results

    class Meta:
        indexes = ((("festival", "code"), False),)


class PublicCandidate(Compiled):
    id = UUIDField(primary_key=True)
    sub_fest = UUIDField()
    chest_no = CharField(max_length=20)  # A-Z folded, for chestNo and chestNoPattern
    search = TextField()
    category = UUIDField(null=True)
    gender = CharField(max_length=16, null=True)
    has_avatar = BooleanField()
    has_registration = BooleanField()
    adm_no_digest = CharField(max_length=64, null=True)
    chest_no_key = BlobField()
    name_key = BlobField()
    body = TextField()
    detail = TextField()
    summary = TextField()  # the candidate of /candidate-result
    results = TextField()  # JSON array of the candidate's published public results

    class Meta:
        indexes = ((("festival", "chest_no"), False),)


class PublicRegistration(Compiled):
    """An entry as one of its participants sees it: one row per (entry, participant)."""

    id = UUIDField()
    candidate = UUIDField()
    registered_at = DateTimeField()
    program_code_key = BlobField()
    program_name_key = BlobField()
    type_key = BlobField()
    body = TextField()

    class Meta:
        primary_key = CompositeKey("candidate", "id")


class PublicTeam(Compiled):
    id = UUIDField(primary_key=True)
    sub_fest = UUIDField()
    search = TextField()
    color_code = CharField(max_length=16, null=True)  # A-Z folded, leading "#"s left out
    candidate_count = IntegerField()
    has_candidates = BooleanField()
    display_order = IntegerField()
    name_key = BlobField()
    public_name_key = BlobField(null=True)
    level = IntegerField()
    body = TextField()


class PublicCategory(Compiled):
    id = UUIDField(primary_key=True)
    sub_fest = UUIDField()
    search = TextField()
    display_order = IntegerField()
    name_key = BlobField()
    body = TextField()


class PublicSchedule(Compiled):
    id = UUIDField(primary_key=True)
    sub_fest = UUIDField()
    sub_fest_programme = UUIDField()
    venue = UUIDField(null=True)  # only when public
    scheduled_at = DateTimeField()
    duration_minutes = IntegerField(null=True)
    program_code_key = BlobField()
    program_name_key = BlobField()
    venue_name_key = BlobField(null=True)
    body = TextField()


class PublicNews(Compiled):
    """Published public news; ``published_at`` is compared with the clock at request time."""

    id = UUIDField(primary_key=True)
    status = CharField(max_length=16)
    is_public = BooleanField()
    published_at = DateTimeField()
    search = TextField()
    has_thumbnail = BooleanField()
    has_feature_image = BooleanField()
    created_at = DateTimeField()
    updated_at = DateTimeField()
    title_key = BlobField()
    body = TextField()


class PublicDownload(Compiled):
    id = UUIDField(primary_key=True)
    search = TextField()
    category = CharField(null=True)  # A-Z folded
    is_public = BooleanField()
    created_at = DateTimeField()
    updated_at = DateTimeField()
    title_key = BlobField()
    category_key = BlobField(null=True)
    body = TextField()


class PublicImage(Compiled):
    id = UUIDField(primary_key=True)
    album = UUIDField()
    sub_fest_programme = UUIDField(null=True)  # only when public
    category = UUIDField(null=True)  # only when public
    created_at = DateTimeField()
    updated_at = DateTimeField()
    title_key = BlobField(null=True)
    display_order = IntegerField()
    body = TextField()


class PublicPlaceholder(Compiled):
    id = UUIDField(primary_key=True)
    sub_fest = UUIDField()
    is_published = BooleanField()  # always true: for ``isPublished``, which never widens
    entity_type = CharField(max_length=24)
    scope_type = CharField(max_length=24)
    display_order = IntegerField()
    label_key = BlobField()
    scope_type_key = BlobField()
    entity_type_key = BlobField()
    last_computed_at = DateTimeField(null=True)
    body = TextField()
    with_entries = TextField()  # the placeholder with its displayed entries (/page-toppers)


class BoardEntry(Compiled):
    """What an entry of a displayed leaderboard holds, the current board's
    (:class:`PublicTopperEntry`) or a past one's (:class:`PublicTopperPastEntry`): the
    sort columns and ``body``, the entry's JSON. Not a table of its own."""

    rank = IntegerField()
    points = FloatField()
    programme_count = IntegerField()
    last_result_at = DateTimeField(null=True)
    name_key = BlobField()
    body = TextField()


class PublicTopperEntry(BoardEntry):
    placeholder = UUIDField()
    entity_id = UUIDField()

    class Meta:
        primary_key = CompositeKey("placeholder", "entity_id")


# The most entries a race follows (the endpoint's ``top`` is at most this), and the
# width of each number of an ``*_ends`` column: where the text of the first 1, 2, ...
# RACE_SIZE items of a comma-separated list ends, each zero-padded to this width (past the
# list's last item, its whole length), so a statement cuts the first ``top`` with
# ``substr`` (:func:`ends_text`).
RACE_SIZE = 50
END_WIDTH = 7


def ends_text(texts):
    """The ``*_ends`` of the comma-separated list of ``texts``."""
    ends, end = [], -1
    for text in texts[:RACE_SIZE]:
        end += len(text) + 1
        ends.append(end)
    ends += [max(end, 0)] * (RACE_SIZE - len(ends))
    return "".join(str(n).zfill(END_WIDTH) for n in ends)


class PublicTopperHistory(Compiled):
    """A leaderboard's history as a whole (``db.compiler.topper_history``): ``digest`` says
    which history its steps are of, so a compile writes again only the histories that moved;
    ``steps`` how many moments it has; ``entries`` the race's entries (its best, at most
    ``RACE_SIZE``, by the current board) as the answer writes them, comma-separated, best
    first, ``entry_ends`` where the first ``top`` of them end (:func:`ends_text`).
    ``/topper-race`` reads it with its placeholder, in one statement."""

    placeholder = UUIDField(primary_key=True)
    digest = CharField(max_length=64)
    steps = IntegerField()
    entries = TextField()
    entry_ends = TextField()


class PublicTopperStep(Compiled):
    """A leaderboard after one publication moment: ``total`` entries on its displayed board,
    ``entries`` that board as ``/page-toppers`` writes it (the entries' JSON, comma-separated,
    in rank order); for the race, ``head`` the step's JSON up to its standings
    (``{"step":…,"at":…,"standings":[``), ``standings`` each race entry's
    ``{"entityId","rank","points"}`` (comma-separated, in the race's order) and
    ``standing_ends`` where the first ``top`` of them end (:func:`ends_text`). ``/topper-race``
    reads a page of steps in order, each cut to its ``top`` by the statement; a board of the
    past is the last step at or before its moment."""

    placeholder = UUIDField()
    step = IntegerField()  # from 1, oldest first
    at = DateTimeField()
    total = IntegerField()
    entries = TextField()
    head = TextField()
    standings = TextField()
    standing_ends = TextField()

    class Meta:
        primary_key = CompositeKey("placeholder", "step")
        indexes = ((("festival", "placeholder", "at"), False), (("festival", "placeholder", "step"), True))


class PublicTopperPastEntry(BoardEntry):
    """One entry of a leaderboard's displayed board after one step (``PublicTopperStep``),
    as :class:`PublicTopperEntry` is one of the current board: the sort columns, ``body``
    the entry's JSON with the numbers of that moment, and the step's ``at`` and ``total``
    on every row, so ``/toppers?asOf=`` reads a page of a past board in order and its total
    in one statement by the same sort indexes (each starting with the step)."""

    placeholder = UUIDField()
    step = IntegerField()
    entity_id = UUIDField()
    at = DateTimeField()
    total = IntegerField()

    class Meta:
        primary_key = CompositeKey("placeholder", "step", "entity_id")


class PublicPage(Compiled):
    id = UUIDField(primary_key=True)
    slug = CharField(max_length=120)
    body = TextField()
    placeholders = TextField()  # JSON array of placeholder ids, in display order

    class Meta:
        indexes = ((("festival", "slug"), True),)


class PublicTotal(Compiled):
    """How many rows a list has when no filter narrows it: ``list_name`` names the list
    (``db.compiled.kinds``), ``list_owner`` the sub-fest, placeholder or festival whose list
    it is (the column is named ``scope``, as it was created)."""

    list_name = CharField(max_length=24)
    list_owner = UUIDField(column_name="scope")
    total = IntegerField()

    class Meta:
        primary_key = CompositeKey("festival", "list_name", "list_owner")


# Each sort field of each list (db/read/*.py's sort tables) after the list's owner.
sort_indexes(PublicSubFest, ("festival",), PublicSubFest.display_order, PublicSubFest.name_key,
             PublicSubFest.start_date)
sort_indexes(PublicProgramme, ("festival", "sub_fest"), PublicProgramme.display_order, PublicProgramme.code_key,
             PublicProgramme.name_key, PublicProgramme.status_key, PublicProgramme.program_type_key,
             PublicProgramme.published_at)
# A search term too short for the text index (db/compiled/text_index.py) is matched on the
# ``search`` the sort index holds: a page and its count read the index, not every row.
sort_indexes(PublicCandidate, ("festival", "sub_fest"), PublicCandidate.chest_no_key, PublicCandidate.name_key,
             covering=(PublicCandidate.search,))
sort_indexes(PublicTeam, ("festival", "sub_fest"), PublicTeam.display_order, PublicTeam.name_key,
             PublicTeam.public_name_key, PublicTeam.level)
sort_indexes(PublicCategory, ("festival", "sub_fest"), PublicCategory.display_order, PublicCategory.name_key)
sort_indexes(PublicSchedule, ("festival",), PublicSchedule.scheduled_at, PublicSchedule.duration_minutes,
             PublicSchedule.program_code_key, PublicSchedule.program_name_key, PublicSchedule.venue_name_key)
sort_indexes(PublicNews, ("festival",), PublicNews.published_at, PublicNews.created_at, PublicNews.updated_at,
             PublicNews.title_key)
sort_indexes(PublicDownload, ("festival",), PublicDownload.created_at, PublicDownload.updated_at,
             PublicDownload.title_key, PublicDownload.category_key)
sort_indexes(PublicImage, ("festival",), PublicImage.created_at, PublicImage.updated_at, PublicImage.title_key,
             PublicImage.display_order)
sort_indexes(PublicPlaceholder, ("festival", "sub_fest"), PublicPlaceholder.display_order, PublicPlaceholder.label_key,
             PublicPlaceholder.scope_type_key, PublicPlaceholder.entity_type_key, PublicPlaceholder.last_computed_at)
sort_indexes(PublicTopperEntry, ("festival", "placeholder"), (PublicTopperEntry.rank, PublicTopperEntry.name_key),
             PublicTopperEntry.points, PublicTopperEntry.name_key, PublicTopperEntry.programme_count,
             PublicTopperEntry.last_result_at)
sort_indexes(PublicTopperPastEntry, ("festival", "placeholder", "step"),
             (PublicTopperPastEntry.rank, PublicTopperPastEntry.name_key), PublicTopperPastEntry.points,
             PublicTopperPastEntry.name_key, PublicTopperPastEntry.programme_count,
             PublicTopperPastEntry.last_result_at)

# Cleared and filled per festival by the compiler, in this order.
READ_MODELS = [
    PublicDocument, PublicTag, PublicSubFest, PublicProgramme, PublicCandidate,
    PublicRegistration, PublicTeam, PublicCategory, PublicSchedule, PublicNews,
    PublicDownload, PublicImage, PublicPlaceholder, PublicTopperEntry, PublicTopperHistory,
    PublicTopperStep, PublicTopperPastEntry, PublicPage, PublicTotal,
]

# Rows a compile of a change writes again only for the leaderboards whose history moved
# (``db.compiler.toppers.compile_histories`` compares digests); a whole compile writes all.
KEPT_BY_DIGEST = {PublicTopperHistory, PublicTopperStep, PublicTopperPastEntry}

# The rows the compile of one record writes, by the kind of record (the names of
# ``db.compiler.Recompile``'s id sets): (model, the column naming the record[, its kinds of tag]).
# Every other compiled row is of the festival as a whole.
PER_RECORD_ROWS = {
    "programme_ids": ((PublicProgramme, PublicProgramme.id), (PublicTag, PublicTag.item, kinds.PROGRAMME_TAGS),
                      (PublicSchedule, PublicSchedule.sub_fest_programme)),
    "candidate_ids": ((PublicCandidate, PublicCandidate.id), (PublicRegistration, PublicRegistration.candidate),
                      (PublicTag, PublicTag.item, kinds.CANDIDATE_TAGS)),
}
PER_RECORD_MODELS = {model for rows in PER_RECORD_ROWS.values() for model, *_ in rows}
PER_RECORD_TAGS = kinds.PROGRAMME_TAGS + kinds.CANDIDATE_TAGS

# Indexes an older database has that the sort indexes replace.
REPLACED_INDEXES = (
    "public_programme_festival_sub_fest_display_order", "public_candidate_festival_sub_fest_chest_no_key",
    "public_news_festival_published_at", "public_placeholder_festival_sub_fest_display_order",
    "public_candidate_by_chest_no_key", "public_candidate_by_name_key",
)


# --- what changed: kept across compiles ---------------------------------------------------

# The changes of a festival's last KEPT_REVISIONS revisions are kept; older ones are pruned
# as each revision is recorded. A site that polls less often than that is told to read its
# lists again (``/changes`` answers 409).
KEPT_REVISIONS = 1000


class PublicChange(Model):
    """One public record that became different at a revision, in public terms.

    Written by the compiler when it replaces a festival's compiled rows: it compares the
    public JSON before and after, so a change to a hidden record (which has no compiled row
    either side) is never listed. ``visible_at`` is when the change can be seen: the
    revision's time, or later for news published for a later moment.
    """

    festival = UUIDField()
    revision = IntegerField()
    visible_at = DateTimeField()
    kind = CharField(max_length=24)
    item = UUIDField()
    action = CharField(max_length=16)
    sub_fest = UUIDField(null=True)
    # The natural keys a site fetches the record by, from its public JSON (JSON object of
    # ``schemas.changes.ChangeSchema`` attribute names; null in rows recorded before them).
    natural_keys = TextField(null=True)

    class Meta:
        database = database
        legacy_table_names = False
        primary_key = CompositeKey("festival", "revision", "kind", "item")
        indexes = ((("festival", "visible_at"), False),)


class PublicRevision(Model):
    """When each revision of a festival's public data was made (``/changes`` counts from it)."""

    festival = UUIDField()
    revision = IntegerField()
    changed_at = DateTimeField()

    class Meta:
        database = database
        legacy_table_names = False
        primary_key = CompositeKey("festival", "revision")


class PublicRecompile(Model):
    """What the compile of a revision wrote again (its ``db.compiler.Recompile``): the whole
    festival, or the rows of some programmes and candidates (JSON arrays of ids) and every
    row of the festival as a whole.

    ``changed_at`` is the festival's ``FestivalRevision.changed_at`` of that revision: with
    the number, it names the revision in this database's history (a database restored from
    a backup may count the same numbers again). The local copy of a service on PostgreSQL
    (:mod:`db.serving.local_copy`) copies only these rows; kept like the changes.
    """

    festival = UUIDField()
    revision = IntegerField()
    changed_at = DateTimeField(null=True)
    whole = BooleanField()
    programme_ids = TextField(null=True)
    candidate_ids = TextField(null=True)

    class Meta:
        database = database
        legacy_table_names = False
        table_name = "public_scope"  # the name it was created with: a kept table, never renamed
        primary_key = CompositeKey("festival", "revision")


HISTORY_MODELS = [PublicChange, PublicRevision, PublicRecompile]
# Columns of the kept tables added after their first release: ``create_tables`` adds them.
ADDED_COLUMNS = [PublicChange.natural_keys, PublicSecret.admission_number_filter]

# Compiled tables whose form changed after their first release: ``(model, a column only the
# new form has)``. An older database's table lacks the column: ``create_tables`` drops it
# (its rows are compiled again by the next compile, see ``db.compiler.upgrade``).
RESHAPED_TABLES = ((PublicTopperHistory, "entry_ends"), (PublicTopperStep, "standing_ends"))
# Compiled tables an older release had and this one does not.
DROPPED_TABLES = ("public_topper_entity",)


def create_tables(db=None):
    """Create every table the service uses, the source's and the compiled ones (safe to
    repeat: an older database gets what it lacks, and compiled tables of an older form are
    made again, empty). Returns the names of the compiled tables made again: their
    festivals need a compile (``db.compiler.upgrade``)."""
    db = db or database
    added = create_source_tables(db)
    install_revision_notify(db)
    remade = drop_older_forms(db)
    if "topper_entry.metrics" in added:
        # Boards have rules since (``metrics``, ``rule``, ``person`` in every answer): the
        # histories are compiled again with the rest.
        remade += drop_compiled_histories(db)
    # Creates what is missing, new indexes of existing tables too (IF NOT EXISTS).
    db.create_tables([*READ_MODELS, *HISTORY_MODELS, PublicSecret], safe=True)
    add_missing_columns(db, ADDED_COLUMNS)
    for name in REPLACED_INDEXES:
        db.execute_sql(f'DROP INDEX IF EXISTS "{name}"')
    bound = getattr(db, "obj", None) or db  # the proxy's bound database
    trigrams = create_text_index(bound)
    if is_postgres(bound):
        create_postgres_search(bound, trigrams)
    return remade


def analyze_compiled_tables():
    """PostgreSQL: bring the planner's statistics of the compiled tables up to date, after
    an import that filled them (a new festival can multiply their rows; until autovacuum
    analyzes them the planner estimates one row a list and reads every entry's row).
    Outside the import's transaction. SQLite: nothing."""
    if is_postgres():
        database.execute_sql("ANALYZE " + ", ".join(f'"{model._meta.table_name}"' for model in READ_MODELS))
        # A search's walk is an index-only scan of these rows: its visibility map set now.
        database.execute_sql(f'VACUUM (ANALYZE) "{ROWS}"')


def drop_older_forms(db):
    """Drop the compiled tables of an older form (``RESHAPED_TABLES``) and those no longer
    used (``DROPPED_TABLES``); return the names of the reshaped ones dropped."""
    tables = set(db.get_tables())
    dropped = []
    for model, column in RESHAPED_TABLES:
        name = model._meta.table_name
        if name in tables and column not in {c.name for c in db.get_columns(name)}:
            db.execute_sql(f'DROP TABLE "{name}"')
            dropped.append(name)
    for name in DROPPED_TABLES:
        if name in tables:
            db.execute_sql(f'DROP TABLE "{name}"')
    return dropped


def drop_compiled_histories(db):
    """Drop the compiled history tables (made again, empty, by ``create_tables``); return
    the names of those dropped."""
    tables = set(db.get_tables())
    dropped = []
    for model in (PublicTopperHistory, PublicTopperStep, PublicTopperPastEntry):
        name = model._meta.table_name
        if name in tables:
            db.execute_sql(f'DROP TABLE "{name}"')
            dropped.append(name)
    return dropped


def required_tables(url):
    """The names of every table a usable database at ``url`` holds (``db.health`` checks
    them): on SQLite the text index's too (``festival-api init`` makes them for an older
    file; without them a search could not be answered). On PostgreSQL the search rows are
    not required: without them a search reads the candidates as before
    (``db.read.candidates``)."""
    names = {model._meta.table_name for model in (*ALL_MODELS, *READ_MODELS, *HISTORY_MODELS, PublicSecret)}
    if sqlite_path(url) is not None:
        names |= set(SQLITE_TABLES)
    return names
