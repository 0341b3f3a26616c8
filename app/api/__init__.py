"""The public API's blueprints, one module per resource, all under ``/public-api/v1``."""
from . import downloads, gallery, news, programmes, subfests

BLUEPRINTS = [
    subfests.blp,
    news.blp,
    gallery.blp,
    downloads.blp,
    programmes.blp,
]
