"""flask-smorest configured the way this API needs: 400 for bad input, three array encodings."""
import flask_smorest
from webargs.flaskparser import FlaskParser
from werkzeug.datastructures import MultiDict
from werkzeug.http import HTTP_STATUS_CODES

GENERIC_MESSAGES = {
    400: "Invalid query parameters.",
    401: "A valid X-API-Key header is required.",
    404: "Not found.",
    405: "Method not allowed.",
    429: "Too many requests.",
    500: "Internal server error.",
    503: "The service is unavailable; try again shortly.",
}


def error_body(code):
    """The JSON error body for ``code``, for errors raised outside flask-smorest."""
    return {"code": code, "status": HTTP_STATUS_CODES.get(code, "Error"), "message": GENERIC_MESSAGES[code]}


class QueryParser(FlaskParser):
    """Bad parameters are a 400, and ``name[]=`` keys count as ``name=``."""

    DEFAULT_VALIDATION_STATUS = 400

    def load_querystring(self, req, schema):
        args = req.args
        if any(key.endswith("[]") for key in args):
            merged = MultiDict()
            for key, value in args.items(multi=True):
                merged.add(key[:-2] if key.endswith("[]") else key, value)
            args = merged
        return self._makeproxy(args, schema)


class Blueprint(flask_smorest.Blueprint):
    ARGUMENTS_PARSER = QueryParser()

    def arguments(self, schema, *args, **kwargs):
        """Parse with one schema instance: webargs would build a new one (copying every
        field) for each request when given the class."""
        if isinstance(schema, type):
            schema = schema()
        return super().arguments(schema, *args, **kwargs)

    # Errors every API endpoint can answer, documented on each operation.
    COMMON_ERRORS = ((401, "UNAUTHORIZED"), (404, "NOT_FOUND"), (429, "TOO_MANY_REQUESTS"))

    def response(self, status_code, *args, **kwargs):
        """Document the view's response and the errors every endpoint shares."""
        document = super().response(status_code, *args, **kwargs)

        def decorator(func):
            func = document(func)
            for code, name in self.COMMON_ERRORS:
                func = self.alt_response(code, response=name)(func)
            return func

        return decorator


def nullable_enum(converter, field, ret, **kwargs):
    """A nullable enum lists ``null`` among its values: OpenAPI 3.0 validators and client
    generators check ``enum`` before ``nullable``."""
    if field.allow_none and "enum" in ret and None not in ret["enum"]:
        return {"enum": [*ret["enum"], None]}
    return {}


class Api(flask_smorest.Api):
    """Every error in one JSON shape, always with a message, never with internals."""

    def _init_spec(self, *args, **kwargs):
        super()._init_spec(*args, **kwargs)
        self.ma_plugin.converter.add_attribute_function(nullable_enum)

    def handle_http_exception(self, error):
        payload, code, headers = super().handle_http_exception(error)
        if getattr(error, "valid_methods", None):
            # a 405 says which methods the resource takes (RFC 9110 §15.5.6)
            headers = {**headers, "Allow": ", ".join(error.valid_methods)}
        if code >= 500:
            payload.pop("errors", None)
            payload["message"] = GENERIC_MESSAGES.get(code, GENERIC_MESSAGES[500])
        elif "message" not in payload:
            payload["message"] = GENERIC_MESSAGES.get(code) or error.description
        return payload, code, headers
