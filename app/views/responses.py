"""Answers stitched from stored public JSON (the compiled read model), sent as they are.

A view returns its answer's JSON as bytes, which the front door sends as they are; the
answer schema of the view's ``@blp.operation`` documents the answer.
"""
from db.compiled.templates import dumps


def json_text(text):
    """A JSON answer from JSON text (with the trailing newline of the API's other JSON)."""
    return (text + "\n").encode()


def meta_json(page):
    meta = page.meta
    return dumps({"page": meta["page"], "limit": meta["limit"], "total": meta["total"],
                  "totalPages": meta["total_pages"], "hasNextPage": meta["has_next_page"],
                  "hasPreviousPage": meta["has_previous_page"]})


def list_json(page, items, context, **extra):
    """``{"data": [items], "meta": ..., "context": context, **extra}`` from a list of JSON texts,
    joined once and encoded once (a page of results is tens of kilobytes: every copy
    counts; the head and the tail go on the first and last items, which are small)."""
    tail = f'],"meta":{meta_json(page)},"context":{context}'
    for name, value in extra.items():
        tail += f',"{name}":{value}'
    if not items:
        return f'{{"data":[{tail}}}\n'.encode()
    items = list(items)  # the caller's list is left as it was
    items[0] = '{"data":[' + items[0]
    items[-1] = f"{items[-1]}{tail}}}\n"
    return ",".join(items).encode()


def object_json(**members):
    """``{name: JSON text, ...}`` as one JSON answer (members in the order given)."""
    return json_text("{" + ",".join(f'"{name}":{value}' for name, value in members.items()) + "}")
