"""The demo results page at ``/``, served only when ``DEMO_PAGE`` is on.

The page (``app/static/demo/``) is plain HTML, CSS and JavaScript that calls the public API
from the browser, so a festival can put it on its own domain, given the API's address and
its key (in the address bar, a script, or the page's form). ``festival-api demo`` passes the keys it just
created as ``DEMO_API_KEYS`` (a list of ``(festival slug, key)``); only then does
``/demo-config.js`` hand them to the page. Outside demo mode neither route exists, so no
key is ever served.
"""
import json
import os

from flask import Blueprint, abort, current_app, send_from_directory

# The page lives in app/static/demo/, beside the app package's templates.
STATIC_FOLDER = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "static", "demo")

blp = Blueprint("demo_page", __name__, static_folder=STATIC_FOLDER, static_url_path="/demo")

# Nothing is loaded from elsewhere; the page may call an API at another address (?api=).
CONTENT_SECURITY_POLICY = ("default-src 'self'; connect-src 'self' http: https:; img-src 'self' data: https:; "
                           "object-src 'none'")


@blp.get("/")
def index():
    """The demo page."""
    return send_from_directory(blp.static_folder, "index.html")


@blp.get("/demo-config.js")
def demo_config():
    """The API base and the demo keys, as a script the page loads first."""
    keys = current_app.config.get("DEMO_API_KEYS") or []
    if not keys:
        abort(404)
    config = {"apiBase": current_app.extensions["demo_page"]["api_base"],
              "festivals": [{"slug": slug, "key": key} for slug, key in keys]}
    # "<" escaped so the JSON can never close a <script> element.
    body = "window.FESTIVAL_DEMO = " + json.dumps(config).replace("<", "\\u003c") + ";\n"
    return body, 200, {"Content-Type": "text/javascript; charset=utf-8", "Cache-Control": "no-store"}


@blp.after_request
def content_security_policy(response):
    response.headers.setdefault("Content-Security-Policy", CONTENT_SECURITY_POLICY)
    return response


def init_demo(app, api_base):
    """Serve the demo page at ``/`` when ``DEMO_PAGE`` is on; it calls the API at ``api_base``
    (given by the factory, which this module does not import)."""
    if app.config["DEMO_PAGE"]:
        app.extensions["demo_page"] = {"api_base": api_base}
        app.register_blueprint(blp)
