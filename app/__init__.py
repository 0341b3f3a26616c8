"""Application factory of the Festival Data Service."""
# Flask, the front door and the views are imported by create_app, not here: the commands of
# `festival-api` that serve nothing (import, keys, --help, a bad setting's one line) import
# this package for app.config and app.cli, and start without loading them.
from importlib import resources

API_PREFIX = "/public-api/v1"
DOCS_ASSETS = f"{API_PREFIX}/docs/assets"


API_DESCRIPTION = """\
Public, read-only data of one festival: schedules, results, leaderboards, news, gallery and
downloads. Every operation is a `GET` with query parameters and answers JSON.

**The key.** Send the festival's API key in the `X-API-Key` header of every request (the
*Authorize* button here). The key decides which festival answers. A missing, unknown or revoked
key is a `401`. A URL may also name the festival (`festival=` its slug, on every operation): the
service checks it against the key (another festival's key is a `403`), and a shared cache that
keys on the URL alone (a CDN) may keep such an answer for every visitor of that festival.

**The envelope.** A list answers `{"data": [...], "meta": {...}, "context": {...}}`: `meta` is
the paging (`page` from 1, `limit` 1 to 500, default 20, `total`, `totalPages`, `hasNextPage`,
`hasPreviousPage`; a page past the end is an empty `200`), and `context` names the festival, the
sub-fest when the answer is of one, and the data's revision (`context.data.revision`) with the
time it changed. A single record answers its named parts (`programme` and `results`, `candidate`
and `results`, ...) with the same `context`. Times are UTC (`Z`), ids are UUIDs.

**The errors.** Every error has one shape, `{"code": 400, "status": "Bad Request", "message":
"...", "errors": {"query": {"limit": ["..."]}}}` (`errors` only for bad parameters): `400` bad
or missing parameter, `401` key, `403` the URL names another festival than the key's, `404` unknown id or a record that is not public (the same
answer for both), `429` too many requests (see `Retry-After`), `503` try again shortly.

**Parameters together.** Different parameters combine with AND. Where an operation needs one
of several parameters (`subFestId` or `subFestSlug`, an id or a code), their descriptions say so
and the operation's `x-dependencies` states it (`Or(a, b);`): sending none is a `400`. Every
other combination is taken: selectors sent together must name the same record, else nothing is
named, the `404` of an unknown one (`subFestId` with another sub-fest's `subFestSlug`), and a
`/schedules` window whose start is after its end is an empty page.

**Result day.** Answers carry an `ETag`; send it back as `If-None-Match` for a `304`. Poll
`/changes?sinceRevision=N` and fetch again only what it names (see `docs/clients.md`).
"""


def _openapi_settings():
    from .views.openapi import HEADERS, SERVERS
    from .views.operations import ENDPOINT_GROUPS, SECURITY, SECURITY_SCHEMES

    return {
        "API_TITLE": "Festival Data Service",
        "API_VERSION": "v1",
        "OPENAPI_VERSION": "3.1.0",
        "OPENAPI_URL_PREFIX": API_PREFIX,
        "OPENAPI_JSON_PATH": "openapi.json",
        "OPENAPI_SWAGGER_UI_PATH": "docs",
        "OPENAPI_SWAGGER_UI_URL": f"{DOCS_ASSETS}/",
        "API_SPEC_OPTIONS": {
            "info": {"description": API_DESCRIPTION},
            "tags": ENDPOINT_GROUPS,
            "servers": SERVERS,
            "components": {"securitySchemes": SECURITY_SCHEMES, "headers": HEADERS},
            "security": SECURITY,
        },
    }


def create_app(config=None):
    """Create the WSGI app; ``config`` overrides settings read from the environment.

    The app is the front door (``app/door/__init__.py``), which every request passes first and
    which answers the API's data endpoints by calling their views, in front of Flask, whose
    routes describe the API (the OpenAPI document) and serve everything else.
    """
    from flask import Flask, send_from_directory

    from .config import load_config
    from .door import FrontDoor
    from .door.access_log import init_access_log
    from .door.limits import trust_proxies
    from .door.healthz import init_health
    from .views.demo import init_demo
    from .views.operations import Api, operation_of

    # Swagger UI's files (5.x, which reads OpenAPI 3.1), from flask-swagger-ui's copy of its
    # distribution (its dist/ folder, the only part of that package used; setup.cfg bounds it).
    swagger_ui_files = resources.files("flask_swagger_ui") / "dist"
    app = Flask(__name__, static_folder=None)  # app/static is served by the demo page only
    # "//news" is a 404 in the JSON error shape, not an HTML redirect.
    app.url_map.merge_slashes = False
    app.config.update(_openapi_settings())
    app.config.update(load_config(config))
    app.json.sort_keys = False
    app.json.ensure_ascii = False

    from .views import BLUEPRINTS

    api = Api(app)
    for blp in BLUEPRINTS:
        api.register_blueprint(blp, url_prefix=API_PREFIX)

    @app.get(f"{DOCS_ASSETS}/<path:filename>")
    def docs_assets(filename):
        return send_from_directory(swagger_ui_files, filename)

    init_access_log(app)
    init_demo(app, API_PREFIX)
    door = FrontDoor(app, f"{API_PREFIX}/")
    names = {blp.name for blp in BLUEPRINTS}
    rules = [rule for rule in app.url_map.iter_rules() if rule.rule.startswith(f"{API_PREFIX}/")]
    door.serve(operations={rule.rule: operation_of(app.view_functions[rule.endpoint])
                           for rule in rules if rule.endpoint.split(".")[0] in names},
               open_paths=[rule.rule for rule in rules if not rule.arguments
                           and rule.endpoint.split(".")[0] not in names],
               http_error=api.handle_http_exception)
    init_health(app, door.health)

    app.extensions["festival_api"] = api
    app.extensions["front_door"] = door
    # The proxy fix goes around the front door, so rate limits count the client's own address.
    app.wsgi_app = trust_proxies(door, app.config["TRUSTED_PROXIES"])
    return app
