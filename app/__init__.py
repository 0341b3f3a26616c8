"""Application factory of the Festival Data Service."""
import swagger_ui_bundle
from flask import Flask, request, send_from_directory
from flask_smorest import abort

from .access_log import init_access_log
from .auth import KeyCache, authenticate
from .caching import init_response_cache
from .config import load_config
from .context import init_revisions
from .database import init_database
from .demo import init_demo
from .health import init_health
from .http import init_http
from .hit_path import HitPath
from .limits import init_rate_limits, trust_proxies
from .smorest import Api

API_PREFIX = "/public-api/v1"
DOCS_ASSETS = f"{API_PREFIX}/docs/assets"


def _openapi_settings():
    return {
        "API_TITLE": "Festival Data Service",
        "API_VERSION": "v1",
        "OPENAPI_VERSION": "3.0.3",
        "OPENAPI_URL_PREFIX": API_PREFIX,
        "OPENAPI_JSON_PATH": "openapi.json",
        "OPENAPI_SWAGGER_UI_PATH": "docs",
        "OPENAPI_SWAGGER_UI_URL": f"{DOCS_ASSETS}/",
        "API_SPEC_OPTIONS": {
            "info": {"description": "Public, read-only data of one festival, chosen by the API key."},
            "components": {"securitySchemes": {
                "ApiKey": {"type": "apiKey", "in": "header", "name": "X-API-Key"}}},
            "security": [{"ApiKey": []}],
        },
    }


def create_app(config=None):
    """Create the WSGI app; ``config`` overrides settings read from the environment."""
    app = Flask(__name__, static_folder=None)  # app/static is served by the demo page only
    # "//news" is a 404 in the JSON error shape, not an HTML redirect.
    app.url_map.merge_slashes = False

    @app.before_request
    def refuse_leading_doubled_slash():
        # The router and request.path drop leading slashes, so "//public-api/..." would match.
        if request.environ.get("PATH_INFO", "").startswith("//"):
            abort(404)

    app.config.update(_openapi_settings())
    app.config.update(load_config(config))
    app.json.sort_keys = False
    app.json.ensure_ascii = False

    from .api import BLUEPRINTS

    protected = {blp.name for blp in BLUEPRINTS}
    # Only API requests read the database: health, docs and the demo page answer without it.
    init_database(app, protected)
    app.extensions["festival_keys"] = KeyCache(app.config["API_KEY_CACHE_SECONDS"])
    init_revisions(app)

    api = Api(app)
    for blp in BLUEPRINTS:
        api.register_blueprint(blp, url_prefix=API_PREFIX)

    @app.before_request
    def require_key():
        if request.blueprint in protected:
            authenticate()

    # Order matters: the limiter and the response cache need the key resolved above,
    # and a cached answer still counts against the key's budget.
    init_rate_limits(app)
    init_response_cache(app)
    init_http(app)
    init_health(app)
    init_access_log(app)
    init_demo(app)

    @app.get(f"{DOCS_ASSETS}/<path:filename>")
    def docs_assets(filename):
        return send_from_directory(swagger_ui_bundle.swagger_ui_path, filename)

    app.extensions["festival_api"] = api
    # Repeated GETs answered from the response cache skip Flask (app/hit_path.py); the
    # proxy fix goes around both paths, so both count the client's own address.
    app.wsgi_app = HitPath(app, app.wsgi_app, f"{API_PREFIX}/")
    trust_proxies(app)
    return app
