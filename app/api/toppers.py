"""GET /topper-placeholders, /toppers and /page-toppers."""
from flask import g

from db.topper_lists import (
    attach_entry_lists,
    find_page,
    get_public_placeholder,
    list_entries,
    list_placeholders,
    page_placeholders,
)
from schemas.toppers import (
    PageTopperQueryArgsSchema,
    PageToppersSchema,
    TopperPlaceholderListSchema,
    TopperPlaceholderQueryArgsSchema,
    TopperQueryArgsSchema,
    ToppersSchema,
)

from ..context import build_context, list_response
from ..lookups import get_or_404, sub_fest_or_404
from ..smorest import Blueprint

blp = Blueprint("toppers", __name__, description="Published leaderboards (toppers).")


def placeholder_or_404(placeholder_id):
    return get_or_404(get_public_placeholder(g.festival.id, placeholder_id), "Topper placeholder")


@blp.get("/topper-placeholders")
@blp.arguments(TopperPlaceholderQueryArgsSchema, location="query", as_kwargs=True)
@blp.response(200, TopperPlaceholderListSchema)
def topper_placeholders(sub_fest_id=None, sub_fest_slug=None, **args):
    """List the published topper placeholders of a sub-fest"""
    sub_fest = sub_fest_or_404(sub_fest_id, sub_fest_slug)
    return list_response(list_placeholders(g.festival.id, sub_fest.id, **args), sub_fest=sub_fest)


@blp.get("/toppers")
@blp.arguments(TopperQueryArgsSchema, location="query", as_kwargs=True)
@blp.response(200, ToppersSchema)
def toppers(topper_placeholder_id, **args):
    """List the ranked entries of one published topper placeholder"""
    placeholder = placeholder_or_404(topper_placeholder_id)
    return list_response(list_entries(placeholder.id, **args), sub_fest=placeholder.sub_fest,
                         placeholder=placeholder)


@blp.get("/page-toppers")
@blp.arguments(PageTopperQueryArgsSchema, location="query", as_kwargs=True)
@blp.response(200, PageToppersSchema)
def page_toppers(page_slug=None, page_id=None, placeholder_id=None):
    """Show the leaderboards configured for a website page"""
    if page_slug is None and page_id is None:
        placeholder = placeholder_or_404(placeholder_id)
        attach_entry_lists([placeholder])
        return {"context": build_context(), "page": None, "toppers": [placeholder]}
    page = get_or_404(find_page(g.festival.id, page_id, page_slug), "Page")
    placeholders = page_placeholders(g.festival.id, page.id, placeholder_id)
    if placeholder_id is not None:
        get_or_404(placeholders[0] if placeholders else None, "Topper placeholder")
    return {"context": build_context(), "page": page, "toppers": placeholders}
