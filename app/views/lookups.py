"""Resolve the ids a request names to visible records of the resolved festival, or 404.

Unknown, another festival's, inactive and non-public ids all get the same 404, so a
response never tells whether a hidden record exists.
"""
from flask_smorest import abort

from db.read.toppers import find_placeholders


def get_or_404(record, what):
    """``record``, or the one 404 of ``what`` when it is None."""
    if record is None:
        abort(404, message=f"{what} not found.")
    return record


def sub_fest_ref_or_404(festival, sub_fest_id=None, sub_fest_slug=None):
    """The public sub-fest named by id or slug (``schemas.selectors.SubFestSelectorArgs``),
    from the festival's compiled sub-fests held in memory (no query). Both sent name the
    sub-fest with that id and that slug: naming different sub-fests, they name none, the one
    404 of an unknown sub-fest."""
    if sub_fest_id is None:
        return sub_fest_ref_by_slug_or_404(festival, sub_fest_slug)
    sub_fest = festival.sub_fests.get(sub_fest_id)
    if sub_fest is not None and sub_fest_slug and sub_fest.slug != sub_fest_slug:
        sub_fest = None
    return get_or_404(sub_fest, "Sub-fest")


def sub_fest_ref_by_slug_or_404(festival, slug):
    return get_or_404(festival.slugs.get(slug), "Sub-fest")


def narrowing_sub_fest_or_404(festival, sub_fest_id=None, sub_fest_slug=None):
    """The sub-fest a lookup by code or chest number is narrowed to, or None when neither is
    sent; the same 404 as :func:`sub_fest_ref_or_404`."""
    if sub_fest_id is None and not sub_fest_slug:
        return None
    return sub_fest_ref_or_404(festival, sub_fest_id, sub_fest_slug)


def placeholder_id_or_404(festival, placeholder_id=None, label=None, sub_fest_id=None, sub_fest_slug=None):
    """The id of the published leaderboard named by id or by label, narrowed to a sub-fest
    when one is named (the rules of the other natural keys, :func:`the_one`); the id as
    given when nothing but an id is sent."""
    sub_fest = narrowing_sub_fest_or_404(festival, sub_fest_id, sub_fest_slug)
    if label is None and (sub_fest is None or placeholder_id is None):
        return placeholder_id
    matches = find_placeholders(festival.id, placeholder_id, label, sub_fest and sub_fest.id)
    return the_one(matches, "Topper placeholder", "placeholderLabel", sub_fest)[0]


def the_one(matches, what, selector, sub_fest):
    """The single match of a selector lookup: 404 for none, 400 when a code is ambiguous."""
    if len(matches) > 1:
        hint = "use its id" if sub_fest else "add subFestSlug"
        abort(400, message=f"{selector} matches {what.lower()}s in more than one place; {hint}.")
    return get_or_404(matches[0] if matches else None, what)
