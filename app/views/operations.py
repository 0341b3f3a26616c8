"""flask-smorest configured the way this API needs: 400 for bad input, three array encodings,
arguments parsed at the cost of what the request sends, and an OpenAPI document that generates
a good client (operation ids, the contract's endpoint groups as tags, the key on every
operation, one documented error shape, the 304 and the headers of every answer, examples,
nullable fields as ``anyOf`` a schema or null). Written against flask-smorest 0.47 (it replaces
``Api._register_responses``; setup.cfg bounds the version)
and apispec 6 (attribute functions of its ``OpenAPIConverter``, a public hook).

A data endpoint is routed with :meth:`Blueprint.operation`: its path, operation id, argument
schema and answer schema, then the view, its docstring and its body. An endpoint's
``*QueryArgsSchema`` stays the one description of its parameters: the OpenAPI document is
made from it, and the front door (``app/door/__init__.py``) loads a request's parameters with
it, by the view's :class:`ArgumentPlan`; the front door calls the view as an
:class:`Operation`, without Flask, giving it the request's festival and its arguments.
A request's parameters are loaded at the cost of what it sends: one schema instance per set
of sent parameters, made once, instead of asking every one of the schema's fields for a value.
"""
import threading
from http import HTTPStatus

import flask
import flask_smorest
import marshmallow as ma
from flask_smorest.utils import prepare_response

from schemas.common import camelcase
from schemas.selectors import dependencies

from ..door.errors import GENERIC_MESSAGES
from ..door.festival_url import PARAMETER as FESTIVAL_PARAMETER
from .openapi import ANSWER_EXAMPLES, ANSWER_HEADERS, COMMON_ERRORS, ERRORS, FESTIVAL, IF_NONE_MATCH, NOT_MODIFIED
from .typos import meant

# A value may hold no control character (a NUL, a newline, an escape...): no stored text has
# one, and PostgreSQL cannot take a NUL as a query argument.
CONTROL_CHARACTERS = frozenset(map(chr, [*range(0x20), 0x7F]))
CONTROL_MESSAGE = "Must not contain control characters."
REPEATED_MESSAGE = "Send this parameter once."

# Sets of sent parameters remembered per endpoint; rarer ones are loaded by the whole schema.
MAX_PLANS = 256

# Unknown names remembered per endpoint with what they were meant to be (cache-busters are
# few); past this many, the memory starts again.
MAX_UNKNOWN_NAMES = 1024
_UNSEEN = object()

# Every endpoint's plan, with its path once routed: a name that is another endpoint's
# parameter is a question asked of the wrong endpoint, not a cache-buster.
_PLANS = []
MAX_NAMED = 3  # endpoints named in that 400's message


class ArgumentPlan:
    """How one endpoint's query parameters are loaded: its argument schema, specialised per
    set of sent parameters.

    ``name[]=`` keys count as ``name=``; unknown parameters are ignored (cache-busters),
    unless they are a typo of one of the endpoint's (``app/views/typos.py``) or a parameter of
    another endpoint (``/programmes?programCode=``): a 400 naming it; a parameter that takes
    one value and is sent twice, and any value with a control character, is a 400 like every
    other bad value.
    """

    def __init__(self, schema):
        self.schema = schema
        self.path = None  # the endpoint's path, set when it is routed
        _PLANS.append(self)
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
        self._unknown = {}  # an unknown name -> its typo message, or None: worked out once
        self._lock = threading.Lock()

    def load(self, pairs):
        """The view's arguments from the query's ``(name, value)`` pairs; a
        ``marshmallow.ValidationError`` holds the messages per parameter."""
        values, errors = {}, {}
        for raw_key, value in pairs:
            key = raw_key[:-2] if raw_key.endswith("[]") else raw_key
            if not CONTROL_CHARACTERS.isdisjoint(value):
                errors[key] = [CONTROL_MESSAGE]  # in any parameter, known or not
            elif key not in self.attribute:
                if key == FESTIVAL_PARAMETER:  # the front door's (app/door/festival_url.py)
                    continue
                typo = self._unknown.get(key, _UNSEEN)
                if typo is _UNSEEN:
                    typo = self._typo(key)
                if typo is not None:
                    errors[key] = [typo]
            elif self.multiple[key]:
                values.setdefault(key, []).append(value)
            elif key in values:
                errors[key] = [REPEATED_MESSAGE]
            else:
                values[key] = value
        if errors:
            raise ma.ValidationError(errors)
        return self.schema_for(frozenset(values)).load(values)

    def _typo(self, name):
        """The message for ``name`` when it is a typo of a parameter or another endpoint's
        parameter, else None (remembered)."""
        parameters = meant(name, [*self.attribute, FESTIVAL_PARAMETER])
        message = f"Unknown parameter: did you mean {' or '.join(parameters)}?" if parameters else None
        if message is None:
            elsewhere = sorted(plan.path for plan in _PLANS
                               if plan.path is not None and plan is not self and name in plan.attribute)
            if elsewhere:
                named = ", ".join(elsewhere[:MAX_NAMED]) + (
                    f" and {len(elsewhere) - MAX_NAMED} more" if len(elsewhere) > MAX_NAMED else "")
                message = f"Not a parameter of {self.path or 'this endpoint'}: it is one of {named}."
        with self._lock:
            if len(self._unknown) >= MAX_UNKNOWN_NAMES:
                self._unknown.clear()
            self._unknown[name] = message
        return message

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


class Operation:
    """A data endpoint as the front door calls it: the view, given the request's festival
    and the arguments its plan loads from the request's query."""

    __slots__ = ("view", "plan")

    def __init__(self, view, plan):
        self.view, self.plan = view, plan

    def __call__(self, festival, pairs):
        """The view's answer (JSON bytes) for ``festival`` (the request's
        ``app.door.request.FestivalAtRevision``); raises ``marshmallow.ValidationError`` for bad
        parameters and the views' own HTTP errors (``abort``)."""
        return self.view(festival, **self.plan.load(pairs))


def operation_of(view):
    """The :class:`Operation` of a view routed with :meth:`Blueprint.operation`."""
    plan = getattr(view, "query_plan", None)
    if plan is None:
        raise TypeError(f"{view.__name__}: a data endpoint is routed with @blp.operation")
    return Operation(view, plan)


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

# The operation's rules relating its parameters, in IDL (``schemas/selectors.py``): the
# IDL4OAS extension, which RESTest's fuzzer reads and tests/test_schemathesis.py gives
# schemathesis. Client generators ignore ``x-`` keys.
DEPENDENCIES = "x-dependencies"


class ErrorSchema(ma.Schema):
    """Every error of the API, whatever its status (flask-smorest's shape)."""

    class Meta:
        description = ("Every error has this shape: `code` and `status` repeat the HTTP status, "
                       "`message` says what is wrong in words a person can read, and a 400 for bad "
                       "parameters adds `errors.query`, the messages per parameter.")

    code = ma.fields.Integer(required=True, metadata={"description": "The HTTP status code, e.g. 400."})
    status = ma.fields.String(required=True, metadata={"description": "The HTTP status name, e.g. `Bad Request`."})
    message = ma.fields.String(required=True, metadata={"description": "What is wrong, for a person to read."})
    errors = ma.fields.Nested(lambda: QueryErrorsSchema(), metadata={
        "description": "Bad parameters only: `{\"query\": {\"limit\": [\"...\"]}}`, the messages per "
                       "parameter (camelCase, as sent)."})


class QueryErrorsSchema(ma.Schema):
    """Where a 400's messages are: per query parameter, a list of messages."""

    query = ma.fields.Dict(keys=ma.fields.String(), values=ma.fields.List(ma.fields.String()), required=True,
                           metadata={"description": "The messages per parameter, each a list of strings, for "
                                                    "a single value and an array alike (an array's item is "
                                                    "named `Item N: ...`, N from 1)."})


class Blueprint(flask_smorest.Blueprint):
    """A resource's blueprint, in one of the contract's endpoint groups (``group``, its tag)."""

    def __init__(self, *args, group, **kwargs):
        super().__init__(*args, **kwargs)
        self.group = group

    def operation(self, rule, operation_id, arguments, answer, *, tags=None, errors=()):
        """Route a data endpoint, ``GET rule``, documented as the operation ``operation_id``
        with its query parameters (``arguments``, its ``*QueryArgsSchema``), its answer
        (``answer``, its schema) and ``errors``, the statuses it alone answers besides the ones
        every operation has (``COMMON_ERRORS``). A view is its docstring (the operation's
        summary and description) and its body: the front door calls it with the request's
        festival and its loaded arguments, ``view(festival, **arguments)``.

        Written with flask-smorest's own decorators, applied as a stack of them would be
        (``get``, ``doc``, ``arguments``, ``response``, ``alt_response``, outermost first), so
        the document is theirs; the view itself is routed, and carries their ``_apidoc``."""

        def decorator(view):
            documented = view
            for code in errors:
                documented = self.alt_response(code, response=HTTPStatus(code).name)(documented)
            documented = self.doc(operationId=operation_id)(self.arguments(arguments)(self.response(200, answer)(
                documented)))
            view._apidoc, view.query_plan = documented._apidoc, documented.query_plan
            return self.route(rule, methods=["GET"], tags=tags)(view)

        return decorator

    def route(self, rule, *, parameters=None, tags=None, **options):
        """Tag the operation with the blueprint's endpoint group; every path takes
        ``If-None-Match`` and ``festival`` (parameters of the path, beside the operation's own
        query parameters)."""
        parameters = [*(parameters or ()), dict(FESTIVAL), dict(IF_NONE_MATCH)]
        routed = super().route(rule, parameters=parameters, tags=tags or [self.group], **options)

        def decorator(func):
            plan = getattr(func, "query_plan", None)
            if plan is not None:
                plan.path = rule
            return routed(func)

        return decorator

    def arguments(self, schema, *, location="query", as_kwargs=True, **kwargs):
        """Document the query parameters as flask-smorest does, with the rules relating them
        (``x-dependencies``), and give the view the :class:`ArgumentPlan` the front door loads
        them with (its arguments as keywords)."""
        if location != "query" or not as_kwargs:
            raise ValueError("the API's parameters are query parameters, given to the view as keywords")
        schema = schema() if isinstance(schema, type) else schema
        document = super().arguments(schema, location=location, as_kwargs=as_kwargs, error_status_code=400,
                                     **kwargs)

        rules = dependencies(schema)

        def decorator(func):
            func._apidoc = document(func)._apidoc
            if rules:  # what OpenAPI cannot say: which parameters go together (IDL4OAS)
                func._apidoc.setdefault("manual_doc", {})[DEPENDENCIES] = rules
            func.query_plan = ArgumentPlan(schema)
            return func

        return decorator

    def response(self, status_code, schema, **kwargs):
        """Document the view's answer (with its example, ``ANSWER_EXAMPLES`` under the view's
        endpoint name, and the headers every answer has), the 304 of a revalidation, the errors
        every endpoint shares, and the key it needs (on the operation itself: some client
        generators read only the operation's own)."""

        def decorator(func):
            example = ANSWER_EXAMPLES.get(f"{self.name}.{func.__name__}")
            document = super(Blueprint, self).response(status_code, schema, example=example,
                                                       headers=dict(ANSWER_HEADERS), **kwargs)
            func = self.doc(security=SECURITY)(document(func))
            func = self.alt_response(304, response="NOT_MODIFIED")(func)
            for code in COMMON_ERRORS[1:]:  # the 400 is @blp.arguments' own
                func = self.alt_response(code, response=HTTPStatus(code).name)(func)
            return func

        return decorator


def nullable_enums(converter, field, ret, **kwargs):
    """A field of a closed set that may be null is ``anyOf`` the set, as a named schema, or
    null: ``{"anyOf": [{"$ref": ".../RegistrationTopicStatus"}, {"type": "null"}]}``, the
    component named after its schema and field.

    apispec writes such a field as ``{"type": ["string", "null"], "enum": [..., null]}``, valid
    OpenAPI 3.1, but client generators read a ``null`` in an ``enum`` apart from the type
    (openapi-python-client makes a class per member); a named set or null reads ``X | null``
    in every one, as apispec's own nullable references (``anyOf`` a ``$ref`` or null) do.
    """
    if not field.allow_none or "enum" not in ret:
        return {}
    attribute = camelcase(field.name)
    name = type(field.parent).__name__.removesuffix("Schema") + attribute[0].upper() + attribute[1:]
    kinds = [kind for kind in ret.pop("type") if kind != "null"]
    values = [value for value in ret.pop("enum") if value is not None]
    if name not in converter.spec.components.schemas:
        converter.spec.components.schema(name, {"type": kinds[0], "enum": values})
    return {"anyOf": [{"$ref": f"#/components/schemas/{name}"}, {"type": "null"}]}


def parameter_example(converter, field, ret, **kwargs):
    """A query parameter's example (``metadata={"example": ...}``) is the parameter's own, which
    interactive docs fill in and generators read, not its schema's (deprecated in OpenAPI 3.1)."""
    example = ret["schema"].pop("example", None)
    return {} if example is None else {"example": example}


class Api(flask_smorest.Api):
    """Every error in one JSON shape, always with a message, never with internals."""

    ERROR_SCHEMA = ErrorSchema

    def __init__(self, *args, **kwargs):
        self._undocumented = []  # blueprints registered, their operations not yet in the document
        self._documenting = threading.Lock()
        super().__init__(*args, **kwargs)

    @property
    def spec(self):
        """The OpenAPI document (an ``apispec.APISpec``), its operations added on first use (a
        request for the document, ``flask openapi``): making them is most of an app's start
        (~35 ms), which a worker that is never asked for the document does not pay."""
        if self._undocumented:
            with self._documenting:
                while self._undocumented:  # emptied only once whole, for readers not waiting
                    blp = self._undocumented[0]
                    blp.register_views_in_doc(self, self._app, self._spec, name=blp.name, parameters=None)
                    self._undocumented.pop(0)
        return self._spec

    @spec.setter
    def spec(self, value):
        self._spec = value

    def register_blueprint(self, blp, **options):
        """Register ``blp``; its operations are documented when the document is first used.
        Unlike flask-smorest's own, this adds no tag named after the blueprint: operations
        carry their endpoint group's tag, and the groups are declared once
        (``API_SPEC_OPTIONS["tags"]``)."""
        self._app.extensions["flask-smorest"]["blp_name_to_api"][blp.name] = self
        self._app.register_blueprint(blp, **options)
        self._undocumented.append(blp)

    def _register_responses(self):
        """The error answers every operation declares (with an example and, for a 429, the
        rate-limit headers) and the 304, in place of flask-smorest's own for those statuses;
        its own for the other statuses."""
        for code, (description, example, headers) in ERRORS.items():
            response = {"description": description, "schema": self.ERROR_SCHEMA, "example": example}
            if headers:
                response["headers"] = headers
            prepare_response(response, self.spec, self.DEFAULT_RESPONSE_CONTENT_TYPE)
            self.spec.components.response(HTTPStatus(code).name, response)
        self.spec.components.response(HTTPStatus.NOT_MODIFIED.name, dict(NOT_MODIFIED))
        for status in HTTPStatus:
            if status not in ERRORS and status != HTTPStatus.NOT_MODIFIED:
                response = {"description": status.phrase}
                if status >= 400:
                    response["schema"] = self.ERROR_SCHEMA
                prepare_response(response, self.spec, self.DEFAULT_RESPONSE_CONTENT_TYPE)
                self.spec.components.response(status.name, response, lazy=True)
        response = {"description": "Any other error, in the same shape.", "schema": self.ERROR_SCHEMA,
                    "example": {"code": 500, "status": "Internal Server Error", "message": GENERIC_MESSAGES[500]}}
        prepare_response(response, self.spec, self.DEFAULT_RESPONSE_CONTENT_TYPE)
        self.spec.components.response(self.DEFAULT_ERROR_RESPONSE_NAME, response, lazy=True)

    def _init_spec(self, *args, **kwargs):
        super()._init_spec(*args, **kwargs)
        self.ma_plugin.converter.add_attribute_function(nullable_enums)
        self.ma_plugin.converter.add_parameter_attribute_function(parameter_example)

    def _openapi_json(self):
        """The document; on a demo (``DEMO_EXAMPLE_DAYS``), its dates moved as the demo moved the
        example festival's (``seed/demo_dates.py``), so the examples name days it has."""
        days = flask.current_app.config.get("DEMO_EXAMPLE_DAYS")
        if not days:
            return super()._openapi_json()
        from seed.demo_dates import moved_examples

        return flask.current_app.response_class(
            flask.json.dumps(moved_examples(self.spec.to_dict(), days), indent=2, sort_keys=False),
            mimetype="application/json")

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
