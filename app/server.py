"""waitress, with its own errors in the service's one JSON error shape, and keep-alive
connections kept after a ``304``.

waitress answers some requests before the app sees them: a request line or headers over
its limits (431), a body over its limit (413), a request it cannot parse, such as a raw
0xff byte in the request line (400), or a transfer coding it does not know (501). Its
answer is plain text; waitress has no setting for that, but each connection's channel
names the task that writes the error (``HTTPChannel.error_task_class``), so the channel
is swapped for one whose error task writes JSON. Nothing from the request is echoed.
"""
import json

from waitress.channel import HTTPChannel
from waitress.server import BaseWSGIServer
from waitress.server import create_server as waitress_create_server
from waitress.task import ErrorTask, WSGITask

MESSAGES = {
    400: "The request could not be parsed.",
    413: "The request body is too large.",
    431: "The request line or headers are too large.",
    501: "The request uses a transfer coding this server does not implement.",
}


class JsonErrorTask(ErrorTask):
    """waitress's error answer, as ``{"code", "status", "message"}``."""

    def execute(self):
        error = self.request.error
        body = json.dumps({"code": error.code, "status": error.reason,
                           "message": MESSAGES.get(error.code, error.reason + ".")}).encode()
        self.status = f"{error.code} {error.reason}"
        self.response_headers.extend([("Content-Type", "application/json"), ("Cache-Control", "no-store")])
        self.set_close_on_finish()
        self.content_length = len(body)
        self.write(body)


class KeepAliveTask(WSGITask):
    """waitress's task, keeping an HTTP/1.1 connection open after an answer that has no
    body by definition (1xx, 204, 304). waitress closes it because such an answer carries
    no Content-Length, though it ends at its headers (RFC 9112 §6.3): every ``304`` cost
    the client a new connection, more than the answer itself."""

    def set_close_on_finish(self):
        asked_to_close = (self.version != "1.1"
                          or self.request.headers.get("CONNECTION", "").lower() == "close")
        if self.has_body or asked_to_close:
            super().set_close_on_finish()


class JsonErrorChannel(HTTPChannel):
    task_class = KeepAliveTask
    error_task_class = JsonErrorTask


def create_server(app, **settings):
    """``waitress.server.create_server`` whose listeners answer waitress's errors in JSON
    and keep connections open after a ``304``."""
    server = waitress_create_server(app, **settings)
    sockets = getattr(server, "map", None) or server._map
    for listener in list(sockets.values()):
        if isinstance(listener, BaseWSGIServer):
            listener.channel_class = JsonErrorChannel
    return server
