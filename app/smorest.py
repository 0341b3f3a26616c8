"""flask-smorest configured the way this API needs: 400 for bad input, three array encodings,
and arguments parsed at the cost of what the request sends.

An endpoint's ``*QueryArgsSchema`` stays the one description of its parameters (the
OpenAPI document is made from it). Parsing a request loads only the fields it sends, plus
those with a default and the required ones: one schema instance per set of sent parameters, made once
(:class:`ArgumentPlan`), instead of asking every one of the schema's fields for a value.
"""
import threading

import flask_smorest
import marshmallow as ma
from webargs.flaskparser import FlaskParser

from .errors import GENERIC_MESSAGES

# A value may hold no control character (a NUL, a newline, an escape...): no stored text has
# one, and PostgreSQL cannot take a NUL as a query argument.
CONTROL_CHARACTERS = frozenset(map(chr, [*range(0x20), 0x7F]))
CONTROL_MESSAGE = "Must not contain control characters."
REPEATED_MESSAGE = "Send this parameter once."

# Sets of sent parameters remembered per endpoint; rarer ones are loaded by the whole schema.
MAX_PLANS = 256


class ArgumentPlan:
    """One endpoint's argument schema, specialised per set of sent parameters."""

    def __init__(self, schema):
        self.schema = schema
        self.multiple = {}  # data key -> whether the field takes several values
        self.attribute = {}  # data key -> the field's attribute name
        defaults = []
        for name, field in schema.load_fields.items():
            key = field.data_key or name
            self.attribute[key] = name
            self.multiple[key] = isinstance(field, (ma.fields.List, ma.fields.Tuple))
            if field.load_default is not ma.missing or field.required:
                defaults.append(name)
        self._defaults = frozenset(defaults)
        self._schemas = {}
        self._lock = threading.Lock()

    def schema_for(self, sent):
        """A schema loading the fields named by the data keys in ``sent``, the fields with a
        default and the required fields."""
        found = self._schemas.get(sent)
        if found is None:
            if len(self._schemas) >= MAX_PLANS:
                return self.schema
            found = type(self.schema)(only=self._defaults | {self.attribute[key] for key in sent})
            with self._lock:
                self._schemas[sent] = found
        return found


class QueryParser(FlaskParser):
    """Query strings loaded at the cost of what they send (see the module doc).

    ``name[]=`` keys count as ``name=``; a parameter that takes one value and is sent twice,
    and any value with a control character, is a 400 like every other bad value.
    """

    DEFAULT_VALIDATION_STATUS = 400

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._plans = {}

    def _plan(self, schema):
        """The plan of an endpoint's schema, or of a schema a plan made."""
        plan = self._plans.get(id(schema))
        if plan is None:
            plan = self._plans[id(schema)] = ArgumentPlan(schema)
        return plan

    def _get_schema(self, argmap, req):
        schema = super()._get_schema(argmap, req)
        plan = self._plan(schema)
        sent = frozenset(key for key in map(_plain_key, req.args.keys()) if key in plan.attribute)
        specialised = plan.schema_for(sent)
        self._plans.setdefault(id(specialised), plan)
        return specialised

    def load_querystring(self, req, schema):
        plan = self._plans[id(schema)]
        values, errors = {}, {}
        for raw_key, items in req.args.lists():
            key = _plain_key(raw_key)
            if key not in plan.attribute:
                continue  # unknown parameters are ignored (cache-busters)
            if any(CONTROL_CHARACTERS.intersection(item) for item in items):
                errors[key] = [CONTROL_MESSAGE]
            elif plan.multiple[key]:
                values.setdefault(key, []).extend(items)
            elif key in values or len(items) > 1:
                errors[key] = [REPEATED_MESSAGE]
            else:
                values[key] = items[0]
        if errors:
            raise ma.ValidationError(errors)
        return values


def _plain_key(key):
    return key[:-2] if key.endswith("[]") else key


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
