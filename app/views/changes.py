"""GET /changes."""
import orjson
from flask_smorest import abort

from db import clock
from db.compiled.templates import dumps
from db.read.changes import list_changes, unknown_revision
from schemas.changes import ChangeListSchema, ChangeQueryArgsSchema, ChangeSchema

from .responses import list_json
from .operations import SCHEDULES_AND_RESULTS, Blueprint

blp = Blueprint("changes", __name__, group=SCHEDULES_AND_RESULTS,
                description="What changed in the festival's public data.")

_change = ChangeSchema()
# Every natural key field is in every item, null where the change has none.
NO_KEYS = dict.fromkeys(("sub_fest_slug", "program_code", "placeholder_label", "title", "album_title", "chest_no"))


@blp.operation("/changes", "listChanges", ChangeQueryArgsSchema, ChangeListSchema, errors=[409])
def changes(festival, since_revision, page, limit, kinds=None):
    """List what changed in the public data after a revision, newest first

    The result-day poll: every programme, leaderboard, news item, download, gallery image or
    candidate (whose results or entries changed) that changed after `sinceRevision`, with its
    id and sub-fest. Fetch again only what it names,
    then take this answer's `context.data.revision` as the next `sinceRevision`. While nothing
    changes the answer is the same, so a revalidation (`If-None-Match`) is a `304`. A revision
    ahead of the festival's, or older than the changes kept, is a `409`: start over from 0.
    """
    unknown = unknown_revision(since_revision, festival.revision)
    if unknown:
        abort(409, message=unknown)
    found = list_changes(festival.id, since_revision, page, limit, clock.utcnow(), kinds)
    items = [dumps(_change.dump({"revision": revision, "changed_at": visible_at, "kind": kind, "id": item,
                                 "action": action, "sub_fest_id": sub_fest, **NO_KEYS, **orjson.loads(keys or "{}")}))
             for revision, visible_at, kind, item, action, sub_fest, keys in found.items]
    return list_json(found, items, festival.context_json())
