"""GET /topper-placeholders, /toppers, /page-toppers and /topper-race."""
from db.clock import festival_zone
from db.read.schedules import utc_moment
from db.read.toppers import (find_page, get_placeholder, list_entries, list_entries_as_of, list_placeholders,
                             placeholders_as_of, placeholders_with_entries, race_head, race_steps)
from schemas.toppers import (PageTopperQueryArgsSchema, PageToppersSchema, TopperPlaceholderListSchema,
                             TopperPlaceholderQueryArgsSchema, TopperQueryArgsSchema,
                             TopperRaceQueryArgsSchema, TopperRaceSchema, ToppersSchema)

from .lookups import get_or_404, placeholder_id_or_404, sub_fest_ref_or_404
from .responses import list_json, meta_json, object_json
from .operations import SCHEDULES_AND_RESULTS, Blueprint

blp = Blueprint("toppers", __name__, group=SCHEDULES_AND_RESULTS,
                description="Published leaderboards (toppers).")

NOT_FOUND = "Topper placeholder"


@blp.operation("/topper-placeholders", "listTopperPlaceholders", TopperPlaceholderQueryArgsSchema,
               TopperPlaceholderListSchema)
def topper_placeholders(festival, sub_fest_id=None, sub_fest_slug=None, **args):
    """List the published topper placeholders of a sub-fest

    The leaderboards of a sub-fest: who is ranked (`entityType`) over which programmes
    (`scopeType`). Their entries come from `/toppers`.
    """
    sub_fest = sub_fest_ref_or_404(festival, sub_fest_id, sub_fest_slug)
    page = list_placeholders(festival.id, sub_fest.id, **args)
    return list_json(page, [body for (body,) in page.items], festival.context_json(sub_fest))


@blp.operation("/toppers", "listToppers", TopperQueryArgsSchema, ToppersSchema)
def toppers(festival, topper_placeholder_id=None, placeholder_label=None, sub_fest_id=None, sub_fest_slug=None,
            as_of=None, **args):
    """List the ranked entries of one published topper placeholder

    One leaderboard's entries, best first: rank, name, team and points, by
    `topperPlaceholderId` or by its label (`placeholderLabel`, with `subFestSlug`). With
    `asOf`, the board as it stood then (`context.asOf` says which publication it is of).
    """
    topper_placeholder_id = placeholder_id_or_404(festival, topper_placeholder_id, placeholder_label, sub_fest_id,
                                                  sub_fest_slug)
    sub_fest_id, placeholder = get_or_404(get_placeholder(festival.id, topper_placeholder_id), NOT_FOUND)
    context = festival.context_json(festival.sub_fests[sub_fest_id])
    if as_of is None:
        page = list_entries(festival.id, topper_placeholder_id, **args)
        context = _with_as_of(context, None, None)
    else:
        moment = _utc(festival, as_of)
        at, page = list_entries_as_of(festival.id, topper_placeholder_id, moment, **args)
        context = _with_as_of(context, moment, at)
    return object_json(context=context, placeholder=placeholder,
                       data=f"[{','.join(body for (body,) in page.items)}]", meta=meta_json(page))


def _utc(festival, moment):
    """``asOf`` as naive UTC: a moment on the festival's clock is placed in its zone."""
    return utc_moment(moment, festival_zone(festival.timezone))


def _moment_json(value):
    if value is None:
        return "null"
    return f'"{value.isoformat(timespec="seconds")}Z"'


def _with_as_of(context, requested, at):
    """The context with ``asOf``: null for the current board."""
    as_of = "null" if requested is None else f'{{"requested":{_moment_json(requested)},"publishedAt":{_moment_json(at)}}}'
    return f'{context[:-1]},"asOf":{as_of}}}'


@blp.operation("/topper-race", "getTopperRace", TopperRaceQueryArgsSchema, TopperRaceSchema)
def topper_race(festival, topper_placeholder_id=None, placeholder_label=None, sub_fest_id=None, sub_fest_slug=None,
                top=10, page=1, limit=20, as_of=None):
    """Show the points race of one published leaderboard

    How a leaderboard moved, for a chart: its best `top` entries by the final (current) board,
    and after each publication that moved the board (a step, oldest first, paged with
    `page` and `limit`) each one's cumulative points and rank. The last step is the current
    board. With `asOf`, the race up to that moment: the steps published by then. The same
    selectors as `/toppers`.
    """
    topper_placeholder_id = placeholder_id_or_404(festival, topper_placeholder_id, placeholder_label, sub_fest_id,
                                                  sub_fest_slug)
    sub_fest_id, placeholder, steps, entries = get_or_404(race_head(festival.id, topper_placeholder_id, top),
                                                          NOT_FOUND)
    moment = None if as_of is None else _utc(festival, as_of)
    at, steps = race_steps(festival.id, topper_placeholder_id, steps, top, page, limit, moment)
    context = _with_as_of(festival.context_json(festival.sub_fests[sub_fest_id]), moment, at)
    return object_json(context=context, placeholder=placeholder, entries=f"[{entries}]",
                       data=f"[{','.join(steps.items)}]", meta=meta_json(steps))


@blp.operation("/page-toppers", "getPageToppers", PageTopperQueryArgsSchema, PageToppersSchema)
def page_toppers(festival, page_slug=None, page_id=None, placeholder_id=None, placeholder_label=None, sub_fest_id=None,
                 sub_fest_slug=None, as_of=None):
    """Show the leaderboards configured for a website page

    Every leaderboard of one website page with its entries, by `pageSlug` (`results`), `pageId`
    or one leaderboard (`placeholderId`, or `placeholderLabel` with `subFestSlug`). With `asOf`,
    every board as it stood then.
    """
    placeholder_id = placeholder_id_or_404(festival, placeholder_id, placeholder_label, sub_fest_id, sub_fest_slug)
    if page_slug is None and page_id is None:
        page, shown = "null", [str(placeholder_id)]
    else:
        page, shown = get_or_404(find_page(festival.id, page_id, page_slug), "Page")
        if placeholder_id is not None:
            shown = [i for i in shown if i == str(placeholder_id)]
    if as_of is None:
        toppers = placeholders_with_entries(festival.id, shown)
        context = _with_as_of(festival.context_json(), None, None)
    else:
        moment = _utc(festival, as_of)
        boards = placeholders_as_of(festival.id, shown, moment)
        toppers = [board for board, _ in boards]
        # the latest publication any of the boards counts
        latest = max((at for _, at in boards if at is not None), default=None)
        context = _with_as_of(festival.context_json(), moment, latest)
    if placeholder_id is not None:
        get_or_404(toppers or None, NOT_FOUND)
    return object_json(context=context, page=page, toppers=f"[{','.join(toppers)}]")
