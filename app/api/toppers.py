"""GET /topper-placeholders, /toppers and /page-toppers."""

from db.read.toppers import (
    find_page,
    get_placeholder,
    list_entries,
    list_placeholders,
    placeholders_with_entries,
)
from schemas.toppers import (
    PageTopperQueryArgsSchema,
    PageToppersSchema,
    TopperPlaceholderListSchema,
    TopperPlaceholderQueryArgsSchema,
    TopperQueryArgsSchema,
    ToppersSchema,
)

from ..context import context_json, festival_id, festival_view
from ..lookups import get_or_404, placeholder_id_or_404, sub_fest_ref_or_404
from ..responses import list_json, meta_json, object_json
from ..smorest import SCHEDULES_AND_RESULTS, Blueprint

blp = Blueprint("toppers", __name__, group=SCHEDULES_AND_RESULTS,
                description="Published leaderboards (toppers).")

NOT_FOUND = "Topper placeholder"


@blp.get("/topper-placeholders")
@blp.doc(operationId="listTopperPlaceholders")
@blp.arguments(TopperPlaceholderQueryArgsSchema, location="query", as_kwargs=True)
@blp.response(200, TopperPlaceholderListSchema)
def topper_placeholders(sub_fest_id=None, sub_fest_slug=None, **args):
    """List the published topper placeholders of a sub-fest

    The leaderboards of a sub-fest: who is ranked (`entityType`) over which programmes
    (`scopeType`). Their entries come from `/toppers`.
    """
    sub_fest = sub_fest_ref_or_404(sub_fest_id, sub_fest_slug)
    page = list_placeholders(festival_id(), sub_fest.id, **args)
    return list_json(page, [body for (body,) in page.items], sub_fest)


@blp.get("/toppers")
@blp.doc(operationId="listToppers")
@blp.arguments(TopperQueryArgsSchema, location="query", as_kwargs=True)
@blp.response(200, ToppersSchema)
def toppers(topper_placeholder_id=None, placeholder_label=None, sub_fest_id=None, sub_fest_slug=None, **args):
    """List the ranked entries of one published topper placeholder

    One leaderboard's entries, best first: rank, name, team and points, by
    `topperPlaceholderId` or by its label (`placeholderLabel`, with `subFestSlug`).
    """
    topper_placeholder_id = placeholder_id_or_404(topper_placeholder_id, placeholder_label, sub_fest_id,
                                                  sub_fest_slug)
    sub_fest_id, placeholder = get_or_404(get_placeholder(festival_id(), topper_placeholder_id), NOT_FOUND)
    page = list_entries(festival_id(), topper_placeholder_id, **args)
    return object_json(context=context_json(festival_view().sub_fests[sub_fest_id]), placeholder=placeholder,
                       data=f"[{','.join(body for (body,) in page.items)}]", meta=meta_json(page))


@blp.get("/page-toppers")
@blp.doc(operationId="getPageToppers")
@blp.arguments(PageTopperQueryArgsSchema, location="query", as_kwargs=True)
@blp.response(200, PageToppersSchema)
def page_toppers(page_slug=None, page_id=None, placeholder_id=None, placeholder_label=None, sub_fest_id=None,
                 sub_fest_slug=None):
    """Show the leaderboards configured for a website page

    Every leaderboard of one website page with its entries, by `pageSlug` (`results`), `pageId`
    or one leaderboard (`placeholderId`, or `placeholderLabel` with `subFestSlug`).
    """
    placeholder_id = placeholder_id_or_404(placeholder_id, placeholder_label, sub_fest_id, sub_fest_slug)
    if page_slug is None and page_id is None:
        page, shown = "null", [str(placeholder_id)]
    else:
        page, shown = get_or_404(find_page(festival_id(), page_id, page_slug), "Page")
        if placeholder_id is not None:
            shown = [i for i in shown if i == str(placeholder_id)]
    toppers = placeholders_with_entries(festival_id(), shown)
    if placeholder_id is not None:
        get_or_404(toppers or None, NOT_FOUND)
    return object_json(context=context_json(), page=page, toppers=f"[{','.join(toppers)}]")
