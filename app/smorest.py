"""flask-smorest configured the way this API needs: 400 for bad input, three array encodings,
arguments parsed at the cost of what the request sends, and an OpenAPI document that generates
a good client (operation ids, the contract's endpoint groups as tags, the key on every
operation, one documented error shape).

An endpoint's ``*QueryArgsSchema`` stays the one description of its parameters (the
OpenAPI document is made from it). Parsing a request loads only the fields it sends, plus
those with a default and the required ones: one schema instance per set of sent parameters, made once
(:class:`ArgumentPlan`), instead of asking every one of the schema's fields for a value.
"""
import threading

import flask_smorest
import marshmallow as ma
from webargs.flaskparser import FlaskParser

from schemas.common import camelcase

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
            if any(CONTROL_CHARACTERS.intersection(item) for item in items):
                errors[key] = [CONTROL_MESSAGE]  # in any parameter, known or not
            elif key not in plan.attribute:
                continue  # unknown parameters are ignored (cache-busters)
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


# The contract's endpoint groups: the OpenAPI document's tags, one per operation.
PUBLIC_CONTENT = "Public content"
FESTIVAL_STRUCTURE = "Festival structure"
SCHEDULES_AND_RESULTS = "Schedules and results"
ENDPOINT_GROUPS = [
    {"name": PUBLIC_CONTENT, "description": "News, gallery images and albums, downloads."},
    {"name": FESTIVAL_STRUCTURE, "description": "Sub-fests, programmes, candidates, teams, categories "
                                                "and the filter options a website builds its menus from."},
    {"name": SCHEDULES_AND_RESULTS, "description": "Schedules, published results, registrations, "
                                                   "leaderboards (toppers), and `/changes`: what changed "
                                                   "after a data revision, for polling on result day."},
]

# The API key, declared once and required by every operation.
SECURITY_SCHEMES = {"ApiKey": {
    "type": "apiKey", "in": "header", "name": "X-API-Key",
    "description": "The festival's API key. The key alone decides which festival answers; "
                   "a missing, unknown or revoked key is a 401."}}
SECURITY = [{"ApiKey": []}]


class ErrorSchema(ma.Schema):
    """Every error of the API, whatever its status (flask-smorest's shape)."""

    class Meta:
        description = ("Every error has this shape: `code` and `status` repeat the HTTP status, "
                       "`message` says what is wrong in words a person can read, and a 400 for bad "
                       "parameters adds `errors.query`, the messages per parameter.")

    code = ma.fields.Integer(required=True, metadata={"description": "The HTTP status code, e.g. 400."})
    status = ma.fields.String(required=True, metadata={"description": "The HTTP status name, e.g. `Bad Request`."})
    message = ma.fields.String(required=True, metadata={"description": "What is wrong, for a person to read."})
    errors = ma.fields.Dict(metadata={
        "description": "Bad parameters only: `{\"query\": {\"limit\": [\"...\"]}}`, the messages per "
                       "parameter (camelCase, as sent)."})


class Blueprint(flask_smorest.Blueprint):
    """A resource's blueprint, in one of the contract's endpoint groups (``group``, its tag)."""

    ARGUMENTS_PARSER = QueryParser()

    def __init__(self, *args, group, **kwargs):
        super().__init__(*args, **kwargs)
        self.group = group

    def route(self, rule, *, parameters=None, tags=None, **options):
        """Tag the operation with the blueprint's endpoint group."""
        return super().route(rule, parameters=parameters, tags=tags or [self.group], **options)

    def arguments(self, schema, *args, **kwargs):
        """Parse with one schema instance: webargs would build a new one (copying every
        field) for each request when given the class."""
        if isinstance(schema, type):
            schema = schema()
        return super().arguments(schema, *args, **kwargs)

    # Errors every API endpoint can answer, documented on each operation.
    COMMON_ERRORS = ((401, "UNAUTHORIZED"), (404, "NOT_FOUND"), (429, "TOO_MANY_REQUESTS"))

    def response(self, status_code, *args, **kwargs):
        """Document the view's response, the errors every endpoint shares, and the key it needs
        (on the operation itself: some client generators read only the operation's own)."""
        document = super().response(status_code, *args, **kwargs)

        def decorator(func):
            func = self.doc(security=SECURITY)(document(func))
            for code, name in self.COMMON_ERRORS:
                func = self.alt_response(code, response=name)(func)
            return func

        return decorator


def nullable_values(converter, field, ret, **kwargs):
    """A field that may be null is ``anyOf`` its values or null, with the values as a named
    schema: ``{"anyOf": [{"$ref": ".../CategoryRef"}, {"type": "object", "nullable": true,
    "enum": [null]}]}``.

    apispec's own ``anyOf`` with an empty nullable object, and ``nullable`` beside an ``enum``
    or an ``allOf``, are read differently by validators and client generators (a generator
    invents a model for the empty object, a validator refuses null); this form means the same
    to both, and a generated client types the field ``CategoryRef | None``. A nullable enum
    becomes a component named after its schema and field (``RegistrationTopicStatus``).
    """
    if not field.allow_none:
        return {}
    if "enum" in ret:
        attribute = camelcase(field.name)
        name = type(field.parent).__name__.removesuffix("Schema") + attribute[0].upper() + attribute[1:]
        if name not in converter.spec.components.schemas:
            converter.spec.components.schema(name, {"type": ret["type"], "enum": ret.pop("enum")})
        kind = ret.pop("type")
        ret.pop("nullable", None)
        ret.pop("enum", None)
        return {"anyOf": [{"$ref": f"#/components/schemas/{name}"}, {"type": kind, "nullable": True, "enum": [None]}]}
    references = [schema for schema in ret.get("anyOf", ()) if "$ref" in schema]
    if references:
        del ret["anyOf"]
        return {"anyOf": [*references, {"type": "object", "nullable": True, "enum": [None]}]}
    return {}


class Api(flask_smorest.Api):
    """Every error in one JSON shape, always with a message, never with internals."""

    ERROR_SCHEMA = ErrorSchema

    def register_blueprint(self, blp, **options):
        """Register ``blp`` and document its operations. Unlike flask-smorest's own, this adds no
        tag named after the blueprint: operations carry their endpoint group's tag, and the
        groups are declared once (``API_SPEC_OPTIONS["tags"]``)."""
        self._app.extensions["flask-smorest"]["blp_name_to_api"][blp.name] = self
        self._app.register_blueprint(blp, **options)
        blp.register_views_in_doc(self, self._app, self.spec, name=blp.name, parameters=None)

    def _init_spec(self, *args, **kwargs):
        super()._init_spec(*args, **kwargs)
        self.ma_plugin.converter.add_attribute_function(nullable_values)

    def _register_pagination_header(self):
        """Nothing to register: lists page in the body (``meta``), never in a header."""

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
