"""The privacy rules: what the public may see. Every record the compile step reads starts
from one of these queries (``public_*``) or row conditions (``visible_*``).

A record the rules hide is treated as if it did not exist: it gets no compiled row, so it
is absent from lists, 404 on detail and not counted anywhere. Review the privacy rules
here and only here.
"""
from peewee import SQL, fn

from . import models as m


def visible_sub_fest():
    return (m.SubFest.is_active == True) & (m.SubFest.is_public == True)  # noqa: E712


def visible_programme():
    """A sub-fest programme and its master record are both active and public."""
    return ((m.SubFestProgramme.is_active == True) & (m.SubFestProgramme.is_public == True)  # noqa: E712
            & (m.Programme.is_active == True) & (m.Programme.is_public == True))  # noqa: E712


def visible_candidate():
    """A sub-fest candidate and the person behind it are both active and public."""
    return ((m.SubFestCandidate.is_active == True) & (m.SubFestCandidate.is_public == True)  # noqa: E712
            & (m.Candidate.is_active == True) & (m.Candidate.is_public == True))  # noqa: E712


def visible_result():
    """Published, public, and of an entry that took part: an absent, disqualified or
    withdrawn entry's result (``Result.status``) is hidden like an unpublished one, so it
    is in no list or count and gives nobody points."""
    return ((m.Result.is_published == True) & (m.Result.is_public == True)  # noqa: E712
            & (m.Result.status == "present"))


def published_news():
    """News that is visible once its ``publishedAt`` has passed: the part of the rule that
    does not change with the clock (the compiler stores these, and a request keeps those
    whose ``publishedAt`` is not after its ``now``: ``db/read/news.py``)."""
    return ((m.News.status == "published") & (m.News.is_public == True)  # noqa: E712
            & (m.News.is_deleted == False)  # noqa: E712
            & m.News.published_at.is_null(False))


def public_sub_fests(festival_id):
    return m.SubFest.select().where((m.SubFest.festival == festival_id) & visible_sub_fest())


def public_categories(sub_fest_id):
    return m.Category.select().where((m.Category.sub_fest == sub_fest_id) & visible_category())


def public_teams(sub_fest_id):
    return m.Team.select().where((m.Team.sub_fest == sub_fest_id) & visible_team())


def public_venues(festival_id):
    return m.Venue.select().where((m.Venue.festival == festival_id) & visible_venue())


def public_collections(festival_id):
    return m.ProgrammeCollection.select().where(
        (m.ProgrammeCollection.festival == festival_id) & visible_collection())


def public_programmes(festival_id, *columns):
    """Active public sub-fest programmes of public sub-fests of the festival."""
    return (m.SubFestProgramme
            .select(*(columns or (m.SubFestProgramme,)))
            .join(m.Programme)
            .switch(m.SubFestProgramme)
            .join(m.SubFest)
            .where((m.SubFest.festival == festival_id) & visible_sub_fest() & visible_programme()))


def public_candidates(festival_id, *columns):
    """Active public sub-fest candidates of public sub-fests of the festival."""
    return (m.SubFestCandidate
            .select(*(columns or (m.SubFestCandidate,)))
            .join(m.Candidate)
            .switch(m.SubFestCandidate)
            .join(m.SubFest)
            .where((m.SubFest.festival == festival_id) & visible_sub_fest() & visible_candidate()))


def public_results(festival_id, *columns):
    """Published public results of public programmes of the festival."""
    return (m.Result
            .select(*(columns or (m.Result,)))
            .join(m.SubFestProgramme)
            .join(m.Programme)
            .switch(m.SubFestProgramme)
            .join(m.SubFest)
            .where((m.SubFest.festival == festival_id) & visible_sub_fest()
                   & visible_programme() & visible_result()))


def public_schedules(festival_id, *columns):
    """Schedules of visible programmes of the festival (join a venue only when it is public)."""
    return (m.Schedule
            .select(*(columns or (m.Schedule,)))
            .join(m.SubFestProgramme)
            .join(m.Programme)
            .switch(m.SubFestProgramme)
            .join(m.SubFest)
            .where((m.SubFest.festival == festival_id) & visible_sub_fest() & visible_programme()))


def visible_registration():
    return m.Registration.is_active == True  # noqa: E712


def public_team_ids(festival_id):
    """Subquery of the ids of the festival's public teams: active public teams of visible
    sub-fests (the teams ``/teams`` lists; a hidden parent does not hide a team)."""
    return (m.Team.select(m.Team.id)
            .join(m.SubFest)
            .where((m.SubFest.festival == festival_id) & visible_sub_fest() & visible_team()))


def team_entry():
    """A team's own entry: it names a team and no candidate, and has no members (a group
    whose members are all hidden is not one: it stays hidden with them)."""
    # NOT EXISTS, correlated: an anti-join on the member index, whatever the number of members
    has_members = fn.EXISTS(m.RegistrationMember
                            .select(SQL("1"))
                            .where(m.RegistrationMember.registration == m.Registration.id))
    return m.Registration.team.is_null(False) & m.Registration.sub_fest_candidate.is_null() & ~has_members


def visible_entry(festival_id):
    """An active registration with a visible participant: the candidate of an individual
    entry, at least one member of a group entry, the team of a team's own entry (see
    :func:`team_entry`) when that team is public."""
    visible_ids = public_candidates(festival_id, m.SubFestCandidate.id)
    member_of_group = (m.RegistrationMember
                       .select(m.RegistrationMember.registration)
                       .where(m.RegistrationMember.sub_fest_candidate.in_(visible_ids)))
    return visible_registration() & (
        ((m.Registration.type != "group") & m.Registration.sub_fest_candidate.in_(visible_ids))
        | ((m.Registration.type == "group") & m.Registration.id.in_(member_of_group))
        | (m.Registration.team.in_(public_team_ids(festival_id)) & team_entry()))


def public_registrations(festival_id, *columns):
    """Visible entries (see :func:`visible_entry`) in visible programmes of the festival."""
    return (m.Registration
            .select(*(columns or (m.Registration,)))
            .join(m.SubFestProgramme)
            .join(m.Programme)
            .switch(m.SubFestProgramme)
            .join(m.SubFest)
            .where((m.SubFest.festival == festival_id) & visible_sub_fest() & visible_programme()
                   & visible_entry(festival_id)))


def public_entry_results(festival_id, *columns):
    """Published public results of public programmes whose entry is visible (see
    :func:`visible_entry`): the results the public sees, lists and counts."""
    return (public_results(festival_id, *(columns or (m.Result,)))
            .switch(m.Result)
            .join(m.Registration)
            .where(visible_entry(festival_id)))


def public_topper_placeholders(festival_id):
    return (m.TopperPlaceholder
            .select()
            .join(m.SubFest)
            .where((m.SubFest.festival == festival_id) & visible_sub_fest()
                   & (m.TopperPlaceholder.is_published == True)))  # noqa: E712


def public_pages(festival_id):
    return m.WebsitePage.select().where(
        (m.WebsitePage.festival == festival_id)
        & (m.WebsitePage.is_published == True) & (m.WebsitePage.is_public == True))  # noqa: E712


def published_news_of(festival_id):
    """The festival's news that is visible now or will be once its ``publishedAt`` passes."""
    return m.News.select().where((m.News.festival == festival_id) & published_news())


def public_downloads(festival_id):
    return m.Download.select().where((m.Download.festival == festival_id) & (m.Download.is_public == True))  # noqa: E712


def public_albums(festival_id):
    return m.GalleryAlbum.select().where(
        (m.GalleryAlbum.festival == festival_id) & (m.GalleryAlbum.is_public == True))  # noqa: E712


def public_images(festival_id):
    """Public images in public albums of the festival."""
    return (m.GalleryImage
            .select(m.GalleryImage, m.GalleryAlbum)
            .join(m.GalleryAlbum)
            .where((m.GalleryAlbum.festival == festival_id)
                   & (m.GalleryAlbum.is_public == True) & (m.GalleryImage.is_public == True)))  # noqa: E712


def public_programme_ids(festival_id):
    """Subquery of visible sub-fest programme ids, for references from other records."""
    return public_programmes(festival_id, m.SubFestProgramme.id)


def public_category_ids(festival_id):
    return (m.Category.select(m.Category.id)
            .join(m.SubFest)
            .where((m.SubFest.festival == festival_id) & visible_sub_fest() & visible_category()))


# Row conditions of the structure records: the queries above use them, and so do subqueries
# whose outer query already pins the festival (e.g. "programmes scheduled at these
# venues": only public venues count).


def visible_category():
    """Active, public, and of a visible sub-fest: a link from another sub-fest's record
    never shows a hidden sub-fest's category."""
    return ((m.Category.is_active == True) & (m.Category.is_public == True)  # noqa: E712
            & m.Category.sub_fest.in_(_visible_sub_fest_ids()))


def visible_team(team=m.Team):
    """Active, public, and of a visible sub-fest: a link from another sub-fest's record never
    shows a hidden sub-fest's team. ``team`` may be an alias of ``Team``, e.g. the child side
    of a parent join."""
    return ((team.is_active == True) & (team.is_public == True)  # noqa: E712
            & team.sub_fest.in_(_visible_sub_fest_ids()))


def _visible_sub_fest_ids():
    return m.SubFest.select(m.SubFest.id).where(visible_sub_fest())


def visible_section():
    return (m.Section.is_active == True) & (m.Section.is_public == True)  # noqa: E712


def visible_venue():
    return m.Venue.is_public == True  # noqa: E712


def visible_collection():
    return m.ProgrammeCollection.is_public == True  # noqa: E712


def visible_judge():
    return m.Judge.is_active == True  # noqa: E712
