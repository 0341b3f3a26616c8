"""Answers stitched from stored public JSON (the compiled read model), sent as they are.

The view returns a ready :class:`flask.Response`; flask-smorest passes it through
unchanged, and its ``@blp.response`` schema still documents the answer.
"""
from flask import current_app

from db.compiled.templates import dumps

from .context import context_json


def json_text(text):
    """A JSON answer from JSON text (with the trailing newline Flask's own JSON has)."""
    return current_app.response_class(text + "\n", mimetype=current_app.json.mimetype)


def meta_json(page):
    meta = page.meta
    return dumps({"page": meta["page"], "limit": meta["limit"], "total": meta["total"],
                  "totalPages": meta["total_pages"], "hasNextPage": meta["has_next_page"],
                  "hasPreviousPage": meta["has_previous_page"]})


def list_json(page, items, sub_fest=None, **extra):
    """``{"data": [items], "meta": ..., "context": ..., **extra}`` from JSON texts."""
    text = (f'{{"data":[{",".join(items)}],"meta":{meta_json(page)},'
            f'"context":{context_json(sub_fest)}')
    for name, value in extra.items():
        text += f',"{name}":{value}'
    return json_text(text + "}")


def object_json(**members):
    """``{name: JSON text, ...}`` as one JSON answer (members in the order given)."""
    return json_text("{" + ",".join(f'"{name}":{value}' for name, value in members.items()) + "}")
