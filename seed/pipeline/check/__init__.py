"""Check: natural keys, the shape and references of the rows, the points and positions of results.

``check_rows`` is the stage's entry: every check an import or an update makes on the
festival's rows once they are complete.
"""
from seed.pipeline.check.board_rules import check_board_rules
from seed.pipeline.check.points import check_results
from seed.pipeline.check.positions import check_positions
from seed.pipeline.check.validation import (
    check_codes,
    check_festival_slug,
    check_foreign_ids,
    check_group_members,
    check_one_entry_per_candidate,
    check_passed_on_keys,
    check_references,
    check_unique,
)

__all__ = ["check_rows"]


def check_rows(state, problems, *, festival_id, where="in this file", only=None, restyled=False, stored=None):
    """Add to ``problems`` what is wrong with the festival's rows ``state``.

    ``festival_id``: the festival the rows belong to (no id of theirs may be another
    festival's; ``None`` skips that check); ``where``: where a reference may point, as the
    messages say it; ``only``: the ids of an update's rows (the stored ones were checked when
    written); ``restyled``: the update changes the festival's ``position_style``;
    ``stored``: an update's stored rows, which its rows may not pass unique values to.
    """
    check_references(state, problems, where, only)
    check_unique(state, problems)
    check_codes(state, problems)
    check_positions(state, problems, only, restyled)
    check_results(state, problems)
    check_one_entry_per_candidate(state, problems)
    check_group_members(state, problems, only)
    check_board_rules(state, problems)
    if festival_id is not None:
        check_festival_slug(state.festival, problems)
        check_foreign_ids(state, festival_id, problems)
    if stored is not None:
        check_passed_on_keys(stored, state, only, problems)
