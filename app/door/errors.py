"""The one JSON error shape: ``{"code", "status", "message"[, "errors"]}``, never with internals."""
import orjson
from werkzeug.http import HTTP_STATUS_CODES

GENERIC_MESSAGES = {
    400: "Invalid query parameters.",
    401: "A valid X-API-Key header is required.",
    403: "This API key belongs to another festival than the URL names.",
    404: "Not found.",
    405: "Method not allowed.",
    429: "Too many requests.",
    500: "Internal server error.",
    503: "The service is unavailable; try again shortly.",
}


def error_body(code, message=None):
    """The JSON error body for ``code`` (a generic message unless ``message`` is given)."""
    return {"code": code, "status": HTTP_STATUS_CODES.get(code, "Error"),
            "message": message or GENERIC_MESSAGES.get(code, HTTP_STATUS_CODES.get(code, "Error") + ".")}


def error_json(code, message=None):
    """:func:`error_body` as JSON bytes."""
    return orjson.dumps(error_body(code, message)) + b"\n"


def query_messages(messages):
    """``{parameter: [message, ...]}`` of a ``ValidationError``'s messages: the messages of an
    array's items (marshmallow's ``{index: [...]}``) become ``"Item N: ..."`` (N from 1), so
    every parameter's messages are a list of strings, whatever its type."""
    return {name: _flat(found) for name, found in messages.items()}


def _flat(found, prefix=""):
    if isinstance(found, dict):
        return [message for index, inner in found.items()
                for message in _flat(inner, f"{prefix}Item {index + 1}: " if isinstance(index, int) else prefix)]
    if isinstance(found, (list, tuple)):
        return [message for inner in found for message in _flat(inner, prefix)]
    return [prefix + str(found)]
