"""Filter options: everything a website offers in its filter menus, public records only.

Without a sub-fest: every public sub-fest of the festival with its categories, teams and
sections, every public venue and programme collection, and the published leaderboards.
With a sub-fest: that sub-fest's records, and only the venues and collections its
visible programmes use.
"""
from dataclasses import dataclass

from . import models as m
from . import visibility
from .topper_lists import mask_hidden_keys, visible_placeholders


@dataclass
class FilterOptions:
    sub_fests: list
    categories: list
    teams: list
    sections: list
    venues: list
    programme_collections: list
    topper_placeholders: list

    @property
    def topper_options(self):
        """The published leaderboards and the entity and scope types they use."""
        return {
            "placeholders": self.topper_placeholders,
            "entity_types": sorted({p.entity_type for p in self.topper_placeholders}),
            "scope_types": sorted({p.scope_type for p in self.topper_placeholders}),
        }


def filter_options(festival_id, sub_fest_id=None):
    """The public filter options of the festival, or of one of its visible sub-fests."""
    sub_fests = visibility.public_sub_fests(festival_id)
    programmes = visibility.public_programme_ids(festival_id)
    venues = visibility.public_venues(festival_id)
    collections = visibility.public_collections(festival_id)
    placeholders = visible_placeholders(festival_id)
    if sub_fest_id is not None:
        sub_fests = sub_fests.where(m.SubFest.id == sub_fest_id)
        programmes = programmes.where(m.SubFestProgramme.sub_fest == sub_fest_id)
        venues = venues.where(m.Venue.id.in_(
            m.Schedule.select(m.Schedule.venue).where(m.Schedule.sub_fest_programme.in_(programmes))))
        collections = collections.where(m.ProgrammeCollection.id.in_(
            m.SubFestProgrammeCollection.select(m.SubFestProgrammeCollection.collection)
            .where(m.SubFestProgrammeCollection.sub_fest_programme.in_(programmes))))
        placeholders = placeholders.where(m.TopperPlaceholder.sub_fest == sub_fest_id)
    sub_fest_ids = sub_fests.select(m.SubFest.id)
    teams = list(m.Team.select()
                 .where(m.Team.sub_fest.in_(sub_fest_ids) & visibility.visible_team())
                 .order_by(m.Team.level, m.Team.display_order, m.Team.name, m.Team.id))
    visible_team_ids = {t.id for t in teams}
    for team in teams:
        # A hidden parent is left out, like every hidden record.
        team.parent_team_id = team.parent_id if team.parent_id in visible_team_ids else None
    placeholders = list(placeholders.order_by(
        m.TopperPlaceholder.display_order, m.TopperPlaceholder.label, m.TopperPlaceholder.id))
    mask_hidden_keys(placeholders)
    return FilterOptions(
        sub_fests=list(sub_fests.order_by(m.SubFest.display_order, m.SubFest.name, m.SubFest.id)),
        categories=list(m.Category.select()
                        .where(m.Category.sub_fest.in_(sub_fest_ids) & visibility.visible_category())
                        .order_by(m.Category.display_order, m.Category.name, m.Category.id)),
        teams=teams,
        sections=list(m.Section.select()
                      .where(m.Section.sub_fest.in_(sub_fest_ids) & visibility.visible_section())
                      .order_by(m.Section.display_order, m.Section.name, m.Section.id)),
        venues=list(venues.order_by(m.Venue.display_order, m.Venue.name, m.Venue.id)),
        programme_collections=list(collections.order_by(
            m.ProgrammeCollection.display_order, m.ProgrammeCollection.name, m.ProgrammeCollection.id)),
        topper_placeholders=placeholders,
    )
