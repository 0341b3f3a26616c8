"""Peewee models for the whole festival domain.

Every visibility flag the public rules need is a real column; ``db/source/visibility.py`` is the
one place that reads them. Private candidate fields live on :class:`Candidate` and are
never named by any output schema, search or sort.
"""
import functools
import uuid

from peewee import (
    BooleanField,
    CharField,
    DateField,
    DateTimeField,
    FloatField,
    ForeignKeyField,
    IntegerField,
    JSONField,
    SQL,
    Model,
    SqliteDatabase,
    TextField,
    UUIDField,
)

from .. import clock
from ..database import database


def _now():
    """A new row's time: :func:`db.clock.utcnow`, read when the row is made."""
    return clock.utcnow()


# Ids read from the database, as ``uuid.UUID``s: a compile reads the same few (a festival's, its
# sub-fests', a programme's) on thousands of rows, and making a UUID was most of reading one.
MAX_IDS_READ = 20_000  # the ids kept (about 4 MB), the least recently read going first
_uuid_of_text = functools.lru_cache(maxsize=MAX_IDS_READ)(uuid.UUID)


class CachedUUIDField(UUIDField):
    """Peewee's ``UUIDField``, each value read as text (SQLite's) made into a ``uuid.UUID`` once
    (UUIDs are immutable: one object serves every row that names it); psycopg2 hands UUIDs."""

    def python_value(self, value):
        if value is None or isinstance(value, uuid.UUID):
            return value
        return _uuid_of_text(value)


class BaseModel(Model):
    id = CachedUUIDField(primary_key=True, default=uuid.uuid4)

    class Meta:
        database = database
        legacy_table_names = False


# --- festival and its structure -------------------------------------------------------


class Festival(BaseModel):
    slug = CharField(unique=True, max_length=80)
    name = CharField()
    name_local = CharField(null=True)
    short_name = CharField(null=True)
    description = TextField(null=True)
    location = CharField(null=True)
    timezone = CharField(default="UTC")
    start_date = DateField(null=True)
    end_date = DateField(null=True)
    logo_url = CharField(null=True)
    website_url = CharField(null=True)
    is_active = BooleanField(default=True)
    # The festival's own word that visitors may look a candidate up by admission number
    # (``admNoPattern``); off, the private number confirms nothing (docs/api-conventions.md).
    admission_number_filter = BooleanField(default=False)
    # How its results' positions rank ties: ``standard`` (1, 1, 3) or ``dense`` (1, 1, 2);
    # the import checks the positions against it (``seed/pipeline/check/positions.py``).
    position_style = CharField(max_length=16, default="standard")
    created_at = DateTimeField(default=_now)
    updated_at = DateTimeField(default=_now)


class FestivalRevision(Model):
    """Bumped by every change to a festival's data; caches and ETags key on it."""

    festival = ForeignKeyField(Festival, primary_key=True, on_delete="CASCADE")
    revision = IntegerField(default=0)
    changed_at = DateTimeField(default=_now)

    class Meta:
        database = database
        legacy_table_names = False


class ApiKey(BaseModel):
    festival = ForeignKeyField(Festival, backref="api_keys", on_delete="CASCADE", index=True)
    label = CharField(null=True)
    prefix = CharField(max_length=16)
    key_hash = CharField(max_length=64, unique=True)
    created_at = DateTimeField(default=_now)
    revoked_at = DateTimeField(null=True)


class SubFest(BaseModel):
    festival = ForeignKeyField(Festival, backref="sub_fests", on_delete="CASCADE", index=True)
    slug = CharField(max_length=80)
    name = CharField()
    name_local = CharField(null=True)
    description = TextField(null=True)
    start_date = DateField(null=True)
    end_date = DateField(null=True)
    logo_url = CharField(null=True)
    display_order = IntegerField(default=0)
    is_active = BooleanField(default=True)
    is_public = BooleanField(default=True)
    created_at = DateTimeField(default=_now)
    updated_at = DateTimeField(default=_now)

    class Meta:
        indexes = ((("festival", "slug"), True),)


class Category(BaseModel):
    sub_fest = ForeignKeyField(SubFest, backref="categories", on_delete="CASCADE", index=True)
    name = CharField()
    name_local = CharField(null=True)
    description = TextField(null=True)
    display_order = IntegerField(default=0)
    is_active = BooleanField(default=True)
    is_public = BooleanField(default=True)


class Team(BaseModel):
    sub_fest = ForeignKeyField(SubFest, backref="teams", on_delete="CASCADE", index=True)
    parent = ForeignKeyField("self", null=True, backref="children", on_delete="SET NULL", index=True)
    level = IntegerField(default=1)
    name = CharField()
    display_name = CharField(null=True)
    public_name = CharField(null=True)
    motto = CharField(null=True)
    logo_url = CharField(null=True)
    color_code = CharField(null=True, max_length=16)
    display_order = IntegerField(default=0)
    is_active = BooleanField(default=True)
    is_public = BooleanField(default=True)


class Section(BaseModel):
    sub_fest = ForeignKeyField(SubFest, backref="sections", on_delete="CASCADE", index=True)
    key = CharField(max_length=40)
    name = CharField()
    name_local = CharField(null=True)
    display_order = IntegerField(default=0)
    is_active = BooleanField(default=True)
    is_public = BooleanField(default=True)


class SectionTeam(BaseModel):
    """A team listed in a section: on a section-scoped leaderboard its own entries (and group
    entries registered for it) count (``docs/rankings.md``)."""

    section = ForeignKeyField(Section, backref="team_links", on_delete="CASCADE", index=True)
    team = ForeignKeyField(Team, on_delete="CASCADE", index=True)


class Venue(BaseModel):
    festival = ForeignKeyField(Festival, backref="venues", on_delete="CASCADE", index=True)
    name = CharField()
    name_local = CharField(null=True)
    location = CharField(null=True)
    display_order = IntegerField(default=0)
    is_public = BooleanField(default=True)


class Judge(BaseModel):
    festival = ForeignKeyField(Festival, backref="judges", on_delete="CASCADE", index=True)
    name = CharField()
    is_active = BooleanField(default=True)


class ProgrammeCollection(BaseModel):
    festival = ForeignKeyField(Festival, backref="collections", on_delete="CASCADE", index=True)
    key = CharField(max_length=40)
    name = CharField()
    display_order = IntegerField(default=0)
    is_public = BooleanField(default=True)


class PositionCriteria(BaseModel):
    """Points per position, e.g. ``{"1": 5, "2": 3, "3": 1}``."""

    festival = ForeignKeyField(Festival, backref="position_criteria", on_delete="CASCADE", index=True)
    name = CharField()
    points = JSONField(default=dict)


class GradeCriteria(BaseModel):
    """Grade bands, e.g. ``[{"grade": "A", "minScore": 80, "points": 5}, ...]``."""

    festival = ForeignKeyField(Festival, backref="grade_criteria", on_delete="CASCADE", index=True)
    name = CharField()
    bands = JSONField(default=list)


# --- programmes -------------------------------------------------------------------------


class Programme(BaseModel):
    """The festival-wide master record of a programme (a competition item)."""

    festival = ForeignKeyField(Festival, backref="programmes", on_delete="CASCADE", index=True)
    code = CharField(max_length=40)
    name = CharField()
    name_local = CharField(null=True)
    description = TextField(null=True)
    program_type = CharField(max_length=20, default="individual", index=True)
    min_members = IntegerField(default=1)
    max_members = IntegerField(default=1)
    duration_minutes = IntegerField(null=True)
    is_active = BooleanField(default=True)
    is_public = BooleanField(default=True)


class SubFestProgramme(BaseModel):
    """A programme as run inside one sub-fest: the unit results are published for."""

    sub_fest = ForeignKeyField(SubFest, backref="programmes", on_delete="CASCADE", index=True)
    programme = ForeignKeyField(Programme, backref="instances", on_delete="CASCADE", index=True)
    category = ForeignKeyField(Category, null=True, backref="programmes", on_delete="SET NULL", index=True)
    code = CharField(max_length=40, index=True)
    status = CharField(max_length=24, default="scheduled", index=True)
    position_criteria = ForeignKeyField(PositionCriteria, null=True, on_delete="SET NULL", index=True)
    grade_criteria = ForeignKeyField(GradeCriteria, null=True, on_delete="SET NULL", index=True)
    requires_topic_registration = BooleanField(default=False)
    candidate_registration_opens_at = DateTimeField(null=True)
    candidate_registration_closes_at = DateTimeField(null=True)
    topic_registration_opens_at = DateTimeField(null=True)
    topic_registration_closes_at = DateTimeField(null=True)
    published_at = DateTimeField(null=True)
    display_order = IntegerField(default=0)
    is_active = BooleanField(default=True, index=True)
    is_public = BooleanField(default=True)


class SubFestProgrammeJudge(BaseModel):
    sub_fest_programme = ForeignKeyField(SubFestProgramme, backref="judge_links", on_delete="CASCADE", index=True)
    judge = ForeignKeyField(Judge, backref="programme_links", on_delete="CASCADE", index=True)


class SubFestProgrammeCollection(BaseModel):
    sub_fest_programme = ForeignKeyField(SubFestProgramme, backref="collection_links", on_delete="CASCADE", index=True)
    collection = ForeignKeyField(ProgrammeCollection, backref="programme_links", on_delete="CASCADE", index=True)


class Schedule(BaseModel):
    sub_fest_programme = ForeignKeyField(SubFestProgramme, backref="schedules", on_delete="CASCADE", index=True)
    venue = ForeignKeyField(Venue, null=True, backref="schedules", on_delete="SET NULL", index=True)
    scheduled_at = DateTimeField(index=True)
    duration_minutes = IntegerField(null=True)


# --- candidates and registrations ---------------------------------------------------------


class Candidate(BaseModel):
    """A person. Everything but ``name``/``name_local``/``gender`` is private."""

    festival = ForeignKeyField(Festival, backref="candidates", on_delete="CASCADE", index=True)
    name = CharField()
    name_local = CharField(null=True)
    gender = CharField(max_length=16, null=True)
    # Private: never serialised, searched or sorted on.
    email = CharField(null=True)
    phone = CharField(null=True)
    date_of_birth = DateField(null=True)
    admission_number = CharField(null=True, index=True)
    admission_details = TextField(null=True)
    is_active = BooleanField(default=True)
    is_public = BooleanField(default=True)


class SubFestCandidate(BaseModel):
    sub_fest = ForeignKeyField(SubFest, backref="candidates", on_delete="CASCADE", index=True)
    candidate = ForeignKeyField(Candidate, backref="entries", on_delete="CASCADE", index=True)
    chest_no = CharField(max_length=20)
    category = ForeignKeyField(Category, null=True, backref="candidates", on_delete="SET NULL", index=True)
    team = ForeignKeyField(Team, null=True, backref="candidates", on_delete="SET NULL", index=True)
    avatar_url = CharField(null=True)
    is_active = BooleanField(default=True, index=True)
    is_public = BooleanField(default=True)

    class Meta:
        indexes = ((("sub_fest", "chest_no"), True),)


class SubFestCandidateSection(BaseModel):
    sub_fest_candidate = ForeignKeyField(SubFestCandidate, backref="section_links", on_delete="CASCADE", index=True)
    section = ForeignKeyField(Section, backref="candidate_links", on_delete="CASCADE", index=True)


class Registration(BaseModel):
    """An entry in a programme: one candidate, or a group led by one."""

    sub_fest_programme = ForeignKeyField(SubFestProgramme, backref="registrations", on_delete="CASCADE", index=True)
    type = CharField(max_length=16, default="individual")
    sub_fest_candidate = ForeignKeyField(SubFestCandidate, null=True, backref="registrations", on_delete="CASCADE", index=True)
    team = ForeignKeyField(Team, null=True, backref="registrations", on_delete="SET NULL", index=True)
    group_name = CharField(null=True)
    topic = CharField(null=True)
    topic_status = CharField(max_length=16, null=True)
    checked_in = BooleanField(default=False)
    registered_at = DateTimeField(default=_now)
    is_active = BooleanField(default=True)


class RegistrationMember(BaseModel):
    registration = ForeignKeyField(Registration, backref="members", on_delete="CASCADE", index=True)
    sub_fest_candidate = ForeignKeyField(SubFestCandidate, backref="memberships", on_delete="CASCADE", index=True)
    display_order = IntegerField(default=0)


class Result(BaseModel):
    registration = ForeignKeyField(Registration, backref="results", on_delete="CASCADE", index=True, unique=True)
    sub_fest_programme = ForeignKeyField(SubFestProgramme, backref="results", on_delete="CASCADE", index=True)
    score = FloatField(null=True)
    grade = CharField(max_length=8, null=True)
    position = IntegerField(null=True)
    position_points = FloatField(default=0)
    grade_points = FloatField(default=0)
    points = FloatField(default=0)
    # True when the points were set by hand against the programme's criteria.
    points_override = BooleanField(default=False)
    # ``present``, or ``absent`` / ``disqualified`` / ``withdrawn``: such a result counts for
    # nobody and is never public (``visibility.visible_result``).
    status = CharField(max_length=16, default="present")
    is_published = BooleanField(default=False)
    is_public = BooleanField(default=True)
    published_at = DateTimeField(null=True)


# --- toppers ---------------------------------------------------------------------------------


class TopperPlaceholder(BaseModel):
    """One configured leaderboard of a sub-fest."""

    sub_fest = ForeignKeyField(SubFest, backref="topper_placeholders", on_delete="CASCADE", index=True)
    label = CharField()
    scope_type = CharField(max_length=24, default="subfest")
    entity_type = CharField(max_length=24, default="candidate")
    category = ForeignKeyField(Category, null=True, on_delete="SET NULL")
    section_key = CharField(null=True, max_length=40)
    collection_key = CharField(null=True, max_length=40)
    team_level = IntegerField(null=True)
    ranking_basis = CharField(max_length=24, default="points")
    display_top_n = IntegerField(default=10)
    display_order = IntegerField(default=0)
    is_published = BooleanField(default=False)
    last_computed_at = DateTimeField(null=True)
    programmes_counted = IntegerField(default=0)
    programmes_in_scope = IntegerField(default=0)
    # The board's rule (docs/rankings.md, "A board's rule"); null: today's rule
    # (``db.source.board_rule.rule_of``). Nullable, so that an older database gets them
    # without its table made again (SQLite would cascade that to the entries and pages).
    counts = JSONField(null=True)
    best_per_programme = BooleanField(null=True)
    points_from = CharField(max_length=16, null=True)
    eligible_if = JSONField(null=True)
    tie_break = JSONField(null=True)
    rank_style = CharField(max_length=16, null=True)

    @property
    def rule(self):
        """The effective rule, defaults filled in (``db.source.board_rule.Rule``)."""
        from .board_rule import rule_of

        return rule_of(self)

    @property
    def rule_json(self):
        """The effective rule as the API shows it (``placeholder.rule``)."""
        return self.rule.as_json()


class TopperEntry(BaseModel):
    placeholder = ForeignKeyField(TopperPlaceholder, backref="entries", on_delete="CASCADE", index=True)
    rank = IntegerField()
    tied = BooleanField(default=False)
    points = FloatField(default=0)
    programme_count = IntegerField(default=0)
    entity_type = CharField(max_length=24)
    entity_id = UUIDField()
    name = CharField()
    details = JSONField(default=dict)
    last_result_at = DateTimeField(null=True)
    # The values of the board's tie-break metrics, in its order (null: the board has none).
    metrics = JSONField(null=True)


class TopperHistory(BaseModel):
    """How a placeholder's board moved: the board after each publication moment, computed
    with its entries (``db.compiler.topper_history.history_for``). ``body`` is its JSON text;
    ``digest`` a hash of it, so the compile step rewrites only the histories that moved."""

    placeholder = ForeignKeyField(TopperPlaceholder, backref="history", on_delete="CASCADE", unique=True)
    digest = CharField(max_length=64)
    body = TextField()


class WebsitePage(BaseModel):
    festival = ForeignKeyField(Festival, backref="pages", on_delete="CASCADE", index=True)
    slug = CharField(max_length=120)
    title = CharField()
    is_published = BooleanField(default=True)
    is_public = BooleanField(default=True)

    class Meta:
        indexes = ((("festival", "slug"), True),)


class WebsitePagePlaceholder(BaseModel):
    page = ForeignKeyField(WebsitePage, backref="placeholder_links", on_delete="CASCADE", index=True)
    placeholder = ForeignKeyField(TopperPlaceholder, backref="page_links", on_delete="CASCADE", index=True)
    display_order = IntegerField(default=0)


# --- public content ------------------------------------------------------------------------------


class News(BaseModel):
    festival = ForeignKeyField(Festival, backref="news", on_delete="CASCADE", index=True)
    title = CharField()
    summary = TextField(null=True)
    content_html = TextField(null=True)
    status = CharField(max_length=16, default="draft", index=True)
    is_public = BooleanField(default=True)
    is_deleted = BooleanField(default=False)
    published_at = DateTimeField(null=True, index=True)
    thumbnail_url = CharField(null=True)
    feature_image_url = CharField(null=True)
    created_at = DateTimeField(default=_now)
    updated_at = DateTimeField(default=_now)


class NewsTag(BaseModel):
    news = ForeignKeyField(News, backref="tag_links", on_delete="CASCADE", index=True)
    tag = CharField(max_length=60, index=True)


class Download(BaseModel):
    festival = ForeignKeyField(Festival, backref="downloads", on_delete="CASCADE", index=True)
    title = CharField()
    description = TextField(null=True)
    category = CharField(null=True, index=True)
    file_url = CharField()
    is_public = BooleanField(default=True)
    created_at = DateTimeField(default=_now)
    updated_at = DateTimeField(default=_now)


class GalleryAlbum(BaseModel):
    festival = ForeignKeyField(Festival, backref="albums", on_delete="CASCADE", index=True)
    title = CharField()
    description = TextField(null=True)
    cover_url = CharField(null=True)
    display_order = IntegerField(default=0)
    is_public = BooleanField(default=True)
    created_at = DateTimeField(default=_now)
    updated_at = DateTimeField(default=_now)


class GalleryImage(BaseModel):
    album = ForeignKeyField(GalleryAlbum, backref="images", on_delete="CASCADE", index=True)
    title = CharField(null=True)
    description = TextField(null=True)
    image_url = CharField()
    thumbnail_url = CharField(null=True)
    sub_fest_programme = ForeignKeyField(SubFestProgramme, null=True, on_delete="SET NULL", index=True)
    category = ForeignKeyField(Category, null=True, on_delete="SET NULL", index=True)
    display_order = IntegerField(default=0)
    is_public = BooleanField(default=True)
    created_at = DateTimeField(default=_now)
    updated_at = DateTimeField(default=_now)


# Creation order: every model after the ones it points to. Fixture import follows it too.
ALL_MODELS = [
    Festival, FestivalRevision, ApiKey, SubFest, Category, Team, Section, SectionTeam, Venue, Judge,
    ProgrammeCollection, PositionCriteria, GradeCriteria, Programme, SubFestProgramme,
    SubFestProgrammeJudge, SubFestProgrammeCollection, Schedule, Candidate, SubFestCandidate,
    SubFestCandidateSection, Registration, RegistrationMember, Result, TopperPlaceholder,
    TopperEntry, TopperHistory, WebsitePage, WebsitePagePlaceholder, News, NewsTag, Download, GalleryAlbum,
    GalleryImage,
]


# Columns added after the first release: ``create_source_tables`` adds them to older databases.
ADDED_COLUMNS = [
    Result.points_override, Festival.admission_number_filter, Festival.position_style, Result.status,
    TopperPlaceholder.counts, TopperPlaceholder.best_per_programme, TopperPlaceholder.points_from,
    TopperPlaceholder.eligible_if, TopperPlaceholder.tie_break, TopperPlaceholder.rank_style, TopperEntry.metrics,
]


def create_source_tables(db=None):
    """Create the source tables (safe to repeat); ``db.compiled.tables.create_tables`` makes
    every table. Returns ``"table.column"`` of each column added to an older database."""
    db = db or database
    db.create_tables(ALL_MODELS, safe=True)
    return add_missing_columns(db, ADDED_COLUMNS)


def add_missing_columns(db, added):
    """Add each field of ``added`` to its table where an older database lacks it; return
    ``"table.column"`` of those added."""
    real = getattr(db, "obj", None) or db  # the proxy's bound database
    made = []
    for f in added:
        table = f.model._meta.table_name
        if f.column_name in {c.name for c in db.get_columns(table)}:
            continue
        made.append(f"{table}.{f.column_name}")
        if isinstance(real, SqliteDatabase) and not f.null and f.default is not None and not callable(f.default):
            # One statement, the default filling the rows: peewee's migrator would rebuild the
            # table, and dropping the old one deletes every row that points at it (ON DELETE
            # CASCADE: a festival's whole data).
            column = f.clone()
            column.name = column.column_name = f.column_name
            column.constraints = [SQL(f"DEFAULT {_literal(f.db_value(f.default))}")]
            ctx = real.get_sql_context()
            sql, params = ctx.sql(column.ddl(ctx)).query()
            real.execute_sql(f'ALTER TABLE "{table}" ADD COLUMN {sql}', params)
            continue
        from playhouse.migrate import SchemaMigrator, migrate

        migrate(SchemaMigrator.from_database(real).add_column(table, f.column_name, f))
    return made


def _literal(value):
    """A default as SQL text (a number, or a quoted string)."""
    if isinstance(value, bool):
        return str(int(value))
    if isinstance(value, (int, float)):
        return repr(value)
    return "'" + str(value).replace("'", "''") + "'"
