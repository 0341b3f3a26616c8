"""One sub-fest, built from its specification in order."""
from .candidates import add_candidates
from .hidden import add_hidden_kinds
from .registrations import add_registrations
from .results import add_results
from .schedules import add_schedules
from .specs import Context
from .structure import add_programmes, add_structure


def add_placeholders(fx, ctx):
    for order, (label, scope, entity, extra, published) in enumerate(ctx.spec.placeholders, 1):
        fields = {"category": None, "section_key": None, "collection_key": None, "team_level": None}
        for key, value in extra.items():
            fields[key] = ctx.categories[value]["id"] if key == "category" else value
        ctx.placeholders.append(fx.add(
            "topperPlaceholders", sub_fest=ctx.row["id"], label=label, scope_type=scope,
            entity_type=entity, **fields, ranking_basis="points", display_top_n=10 if entity != "team" else 14,
            display_order=order, is_published=published))


def build_sub_fest(fx, shared, spec, order, shared_from=None):
    ctx = Context(spec, fx.add(
        "subFests", slug=spec.slug, name=spec.name, name_local=spec.name_local,
        description=spec.description, start_date=spec.days[0].isoformat(),
        end_date=spec.days[-1].isoformat(), logo_url=None, display_order=order,
        is_active=spec.is_active, is_public=spec.is_public,
        created_at="2025-10-01T04:30:00Z", updated_at="2026-01-10T04:30:00Z"))
    add_structure(fx, ctx)
    add_candidates(fx, ctx, shared_from)
    add_programmes(fx, shared, ctx)
    if spec.hidden_kinds_category:
        add_hidden_kinds(fx, shared, ctx, spec.hidden_kinds_category)
    regs = add_registrations(fx, ctx)
    add_schedules(fx, shared, ctx)  # sets published_at, which results copy
    hidden_entries = {e.row["id"] for e in ctx.entries if e.hidden}
    add_results(fx, shared, ctx, regs, hidden_entries)
    add_placeholders(fx, ctx)
    return ctx


def pick(ctx, *labels):
    return [p for p in ctx.placeholders if p["label"] in labels]
