"""The public API's blueprints, one module per resource, all under ``/public-api/v1``."""
from . import changes, candidates, categories, downloads, filters, gallery, news, programmes, registrations, results, schedules, subfests, teams, toppers

BLUEPRINTS = [
    subfests.blp,
    news.blp,
    gallery.blp,
    downloads.blp,
    programmes.blp,
    candidates.blp,
    teams.blp,
    categories.blp,
    filters.blp,
    schedules.blp,
    results.blp,
    registrations.blp,
    toppers.blp,
    changes.blp,
]
