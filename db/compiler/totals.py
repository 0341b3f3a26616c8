"""Store the total of every list that a request may read unfiltered (``PublicTotal``): a
count over the compiled rows, once per compile, instead of once per request."""
from peewee import SQL, fn

from ..bulk import insert_rows
from ..compiled import kinds
from ..compiled.tables import (
    PublicCandidate,
    PublicCategory,
    PublicDownload,
    PublicImage,
    PublicPlaceholder,
    PublicProgramme,
    PublicSchedule,
    PublicSubFest,
    PublicTeam,
    PublicTopperEntry,
    PublicTotal,
)

# (list, its table, the column naming the list's owner; None: the festival)
TOTALS = (
    (kinds.LIST_SUB_FESTS, PublicSubFest, None),
    (kinds.LIST_PROGRAMMES, PublicProgramme, PublicProgramme.sub_fest),
    (kinds.LIST_CANDIDATES, PublicCandidate, PublicCandidate.sub_fest),
    (kinds.LIST_TEAMS, PublicTeam, PublicTeam.sub_fest),
    (kinds.LIST_CATEGORIES, PublicCategory, PublicCategory.sub_fest),
    (kinds.LIST_SCHEDULES, PublicSchedule, None),
    (kinds.LIST_SCHEDULES, PublicSchedule, PublicSchedule.sub_fest),
    (kinds.LIST_DOWNLOADS, PublicDownload, None),
    (kinds.LIST_IMAGES, PublicImage, None),
    (kinds.LIST_PLACEHOLDERS, PublicPlaceholder, PublicPlaceholder.sub_fest),
    (kinds.LIST_ENTRIES, PublicTopperEntry, PublicTopperEntry.placeholder),
)


def store_totals(festival_id):
    """Count the festival's compiled lists (after every compile, whole or in part: the
    caller has cleared the previous totals). An empty list has no row: its total is 0."""
    rows = []
    for name, model, owner in TOTALS:
        owner = owner or model.festival
        counts = (model
                  .select(owner, fn.COUNT(SQL("*")))
                  .where(model.festival == festival_id)
                  .group_by(owner)
                  .tuples())
        rows += [{"festival": festival_id, "list_name": name, "list_owner": value, "total": total}
                 for value, total in counts]
    insert_rows(PublicTotal, rows)
