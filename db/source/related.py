"""Related rows attached to loaded items as lists, one query a relation whatever the number of items."""


def attach_lists(items, name, rows_of):
    """Set ``item.<name>`` on every item to the list of its related values, in the order of
    ``rows_of(ids)``: ``(item id, value)`` pairs of the items with these ids (asked only
    when there are items)."""
    by_id = {item.id: item for item in items}
    for item in items:
        setattr(item, name, [])
    if by_id:
        for item_id, value in rows_of(list(by_id)):
            getattr(by_id[item_id], name).append(value)


def attach_linked(items, name, link, target, columns, visible):
    """Set ``item.<name>`` on every item to the ``target`` rows that the ``link`` column of a
    link table ties it to and that are ``visible`` (a condition), in display order (then key,
    then id): each a dict of the target's ``columns``."""
    def rows_of(ids):
        rows = (link.model
                .select(link, *(getattr(target, column) for column in columns))
                .join(target)
                .where(link.in_(ids) & visible)
                .order_by(target.display_order, target.key, target.id)
                .dicts())
        for row in rows:
            yield row[link.name], {column: row[column] for column in columns}

    attach_lists(items, name, rows_of)
