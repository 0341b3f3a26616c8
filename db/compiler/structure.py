"""Compile the festival's structure: sub-fests, teams and categories."""
from schemas.categories import CategorySchema
from schemas.common import SubFestSummarySchema
from schemas.subfests import SubFestSchema
from schemas.teams import TeamSchema

from ..compiled.tables import PublicCategory, PublicSubFest, PublicTeam, color_key
from ..compiled.templates import dumps
from ..query import search_text, text_sort_key
from ..source import visibility
from ..source.categories import attach_counts
from ..source.teams import attach_candidate_counts, attach_parents

# Read in batches: every source query of a batch takes the batch's ids as parameters.
BATCH = 500


def compile_sub_fests(festival_id, writer):
    body_schema, summary_schema = SubFestSchema(), SubFestSummarySchema()
    for sub_fest in visibility.public_sub_fests(festival_id):
        writer.add(
            PublicSubFest, id=sub_fest.id, slug=sub_fest.slug,
            search=search_text(sub_fest.name, sub_fest.name_local, sub_fest.slug),
            display_order=sub_fest.display_order, name_key=text_sort_key(sub_fest.name),
            start_date=sub_fest.start_date, summary=dumps(summary_schema.dump(sub_fest)),
            body=dumps(body_schema.dump(sub_fest)))


def compile_structure(festival_id, writer):
    """Teams and categories of the public sub-fests, with their public counts."""
    team_schema, category_schema = TeamSchema(), CategorySchema()
    for sub_fest in visibility.public_sub_fests(festival_id):
        teams = list(visibility.public_teams(sub_fest.id))
        for start in range(0, len(teams), BATCH):
            batch = teams[start:start + BATCH]
            attach_parents(batch)
            attach_candidate_counts(festival_id, sub_fest.id, batch)
            for team in batch:
                _compile_team(writer, team, team_schema)
        categories = list(visibility.public_categories(sub_fest.id))
        for start in range(0, len(categories), BATCH):
            batch = categories[start:start + BATCH]
            attach_counts(festival_id, batch)
            for category in batch:
                _compile_category(writer, category, category_schema)


def _compile_team(writer, team, schema):
    writer.add(
        PublicTeam, id=team.id, sub_fest=team.sub_fest_id,
        search=search_text(team.name, team.display_name, team.public_name),
        color_code=None if team.color_code is None else color_key(team.color_code),
        candidate_count=team.candidate_count, has_candidates=team.candidate_count > 0,
        display_order=team.display_order,
        name_key=text_sort_key(team.name), public_name_key=text_sort_key(team.public_name),
        level=team.level, body=dumps(schema.dump(team)))


def _compile_category(writer, category, schema):
    writer.add(
        PublicCategory, id=category.id, sub_fest=category.sub_fest_id,
        search=search_text(category.name, category.name_local), display_order=category.display_order,
        name_key=text_sort_key(category.name), body=dumps(schema.dump(category)))
