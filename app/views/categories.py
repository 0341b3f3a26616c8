"""GET /categories."""

from db.read.categories import list_categories
from schemas.categories import CategoryListSchema, CategoryQueryArgsSchema

from .lookups import sub_fest_ref_or_404
from .responses import list_json
from .operations import FESTIVAL_STRUCTURE, Blueprint

blp = Blueprint("categories", __name__, group=FESTIVAL_STRUCTURE,
                description="Active public categories of a sub-fest.")


@blp.operation("/categories", "listCategories", CategoryQueryArgsSchema, CategoryListSchema)
def categories(festival, sub_fest_id=None, sub_fest_slug=None, **args):
    """List active public categories of a sub-fest

    The age or class groups of a sub-fest (`HS`, `UP`, ...), with the number of programmes and
    candidates in each.
    """
    sub_fest = sub_fest_ref_or_404(festival, sub_fest_id, sub_fest_slug)
    page = list_categories(festival.id, sub_fest.id, **args)
    return list_json(page, [body for body, in page.items], festival.context_json(sub_fest))
