"""A GET straight through the app's WSGI callable, for tests that make thousands of requests.

Flask's test client builds a request, a cookie jar and a response object around each call;
tests that only compare status and body need none of that. The environ is the one the test
client would send (built once by Werkzeug's ``EnvironBuilder``), with its own query string.
"""
import io
from urllib.parse import urlencode

from werkzeug.test import EnvironBuilder


class WsgiGetter:
    """``get(path, query, headers) -> (status code, body text)`` through ``app``."""

    def __init__(self, app):
        self.app = app
        self.base = {**EnvironBuilder(method="GET").get_environ(), **app.test_client().environ_base}

    def get(self, path, query, headers):
        query_string = urlencode(query, doseq=True)
        uri = f"{path}?{query_string}" if query_string else path
        environ = dict(self.base, PATH_INFO=path, QUERY_STRING=query_string, REQUEST_URI=uri, RAW_URI=uri,
                       **{"wsgi.input": io.BytesIO()})
        environ.update(("HTTP_" + name.upper().replace("-", "_"), value) for name, value in headers.items())
        started = []
        body = self.app(environ, lambda status, response_headers, exc_info=None: started.append(status))
        try:
            data = b"".join(body)
        finally:
            if hasattr(body, "close"):
                body.close()
        return int(started[0].split(" ", 1)[0]), data.decode()
