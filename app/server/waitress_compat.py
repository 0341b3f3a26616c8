"""Everything the service changes in waitress, in one module.

Written against waitress 3.0.2 (setup.cfg bounds it to ``>=3.0,<3.1``). It subclasses
waitress's task (``ErrorTask``, ``WSGITask``: ``build_response_header``, ``wrote_header``,
``complete``, ``chunked_response``, ``content_length``, ``has_body``), channel
(``HTTPChannel``: ``outbuf_lock``, ``total_outbufs_len``, ``write_soon``,
``_flush_some_if_lockable`` (written again: it waits a moment for the lock), ``_flush_some``, ``received``
(written again, as waitress 3.0.2 has it, with a stop at the pipeline depth),
``handle_read`` (written again: a read that finds nothing is no error), ``recv``,
``handle_close``, ``readable``, ``handle_write``, ``service``, ``requests``, ``requests_lock``, ``request``,
``send_continue``, ``sent_continue``, ``will_close``, ``close_when_flushed``,
``connected``, ``creation_time``, ``parser_class``, ``del_channel``), request parser
(``HTTPRequestParser``: ``received``, ``headers``, ``headers_finished``, ``chunked``,
``content_length``, ``expect_continue``, ``body_rcv``, ``completed``, ``error``,
``empty``) and dispatcher (``ThreadedTaskDispatcher``: ``handler_thread``, written again
to take requests in a fair order, ``queue``, ``queue_cv``, ``lock``, ``threads``,
``stop_count``, ``active_count``, ``thread_exit_cv``, ``add_task``); it replaces three
methods of each listener (``handle_accept``, ``readable``, ``maintenance``) and uses its
``accept``, ``set_socket_options``, ``fix_addr``, ``_map``, ``adj``, ``accepting``,
``next_channel_cleanup``, ``active_channels``, ``trigger`` (its ``_physical_pull``) and
``pull_trigger``; its loop replaces ``wasyncore.loop`` through the servers' ``asyncore``
attribute (``run`` calls ``asyncore.loop``), and drives each dispatcher as ``wasyncore.poll2``
does (``readable``, ``writable``, ``accepting``, ``_fileno``, ``add_channel``,
``wasyncore.readwrite``). The server and fault tests (tests/test_server.py, tests/faults/)
hold each of these; CI runs them against the newest waitress the bound
allows (``.ci/run``).

What it changes:

- waitress's own errors (a request line or headers over its limits, 431; a request it
  cannot parse, 400; a transfer coding it does not know, 501) are answered in the
  service's one JSON error shape (:class:`JsonErrorTask`), with the CORS headers the app's
  answers carry for the request's ``Origin`` (echoed only when it is on the allow-list);
  nothing else from the request is echoed;
- a request that declares a body (``Content-Length`` above 0, ``Transfer-Encoding``) is
  answered ``413`` and one that sends ``Expect`` ``417`` as soon as its headers are in,
  and the connection is closed: the API is read-only and takes no body, and waitress would
  otherwise wait for the body, or for a ``100-continue`` that never comes, holding the
  connection (:class:`BodilessRequestParser`);
- one client address keeps at most ``CONNECTIONS_PER_ADDRESS`` connections open; more are
  answered ``429`` as they are accepted (:class:`AddressGate`), and closed once the client
  closes or after ``LINGER_SECONDS`` (:func:`_refuse`). Behind trusted
  proxies every connection comes from a proxy, so the cap counts each forwarded address's
  requests in progress instead, answering ``429`` to more;
- a connection must send a request's whole headers within ``HEADER_TIMEOUT`` seconds of
  opening (or of the request's first byte on a kept-alive connection), or it is closed:
  idle or dripping connections (slowloris) cannot hold the connection slots;
- at ``CONNECTION_LIMIT`` a newcomer is still accepted: an address holding less than half
  as many connections as the biggest holder gets one of that holder's idle ones
  (:func:`_make_room`), others are answered ``429`` a second later (:func:`_hold_back`);
  many addresses keeping every slot they can never keep another client waiting;
- one address's requests hold at most ``THREADS_PER_ADDRESS`` worker threads, and the
  requests waiting are taken in turn by address (:class:`FairQueue`);
- a slow reader holds buffers, never a worker: a connection has at most
  ``PIPELINE_DEPTH`` requests read and unanswered, its next request goes to a worker only
  once the answer before it is handed to the socket, and an answer that waits
  ``SEND_TIMEOUT`` for its reader closes the connection (:class:`JsonErrorChannel`);
- a ``304`` keeps its keep-alive connection; a whole answer goes out with its head in one
  system call; the app's ``AFTER_ANSWER`` work runs after the answer is sent; idle workers
  are woken last-in first-out, none for a connection's next request that the worker
  queuing it takes itself, and ``/healthz`` has a worker thread of its own;
- a client that sends its next request as soon as an answer reaches it (a quick one) has
  it read and served by the worker that answered (which waits ``NEXT_REQUEST_WAIT`` for
  it, when no other request waits), not by the loop: no thread is woken for it;
- the connections waiting are accepted in one turn of the loop, not one per turn;
- the loop waits on epoll and a turn costs what the connections that did something cost,
  not what all that are open cost: idle or dripping crowds of thousands of connections do
  not slow everyone else's requests (:class:`ChannelLoop`).
"""
import contextlib
import functools
import heapq
import itertools
import json
import logging
import math
import select
import socket
import struct
import sys
import threading
import time
from collections import OrderedDict, deque

from waitress import wasyncore
from waitress.channel import HTTPChannel
from waitress.parser import HTTPRequestParser
from waitress.server import BaseWSGIServer
from waitress.server import create_server as waitress_create_server
from waitress.buffers import ReadOnlyFileBasedBuffer
from waitress.task import ErrorTask, ThreadedTaskDispatcher, WSGITask
from waitress.utilities import Error, RequestEntityTooLarge, RequestHeaderFieldsTooLarge, build_http_date

from ..door.access_log import write_held
from ..door.request import AFTER_ANSWER
from .wake_order import LastInFirstOut

MESSAGES = {
    400: "The request could not be parsed.",
    413: "The API takes no request body: send the request without Content-Length or Transfer-Encoding.",
    417: "The API takes no request body, so it does not answer Expect: send the request without it.",
    429: "Too many requests in progress from this address; try again shortly.",
    431: "The request line or headers are too large.",
    501: "The request uses a transfer coding this server does not implement.",
}

# Seconds a client refused for its address's connections or requests is told to wait.
RETRY_AFTER = 1
# Requests one connection may have read and not yet answered (PIPELINE_DEPTH), seconds a
# finished answer may wait for its reader (SEND_TIMEOUT).
DEFAULT_PIPELINE_DEPTH = 8
DEFAULT_SEND_TIMEOUT = 30


class ExpectationFailed(Error):
    code = 417
    reason = "Expectation Failed"


class TooManyRequests(Error):
    code = 429
    reason = "Too Many Requests"


class JsonErrorTask(ErrorTask):
    """waitress's error answer, as ``{"code", "status", "message"}``, with the CORS headers an
    answer of the app carries for the request's ``Origin`` (the listener's ``cors``), so a
    page on another origin can read it; the connection is closed."""

    def execute(self):
        request = self.request
        error = request.error
        body = json.dumps({"code": error.code, "status": error.reason,
                           "message": MESSAGES.get(error.code, error.reason + ".")}).encode()
        self.status = f"{error.code} {error.reason}"
        self.response_headers.extend([("Content-Type", "application/json"), ("Cache-Control", "no-store")])
        if error.code == 429:
            self.response_headers.append(("Retry-After", str(RETRY_AFTER)))
        cors = getattr(self.channel.server, "cors", None)
        if cors is not None:
            origin = request.headers.get("ORIGIN")
            self.response_headers.extend(cors(origin if origin is not None else getattr(request, "origin", None)))
        self.set_close_on_finish()
        self.content_length = len(body)
        self.write(body)




# Header names as an answer spells them -> as waitress sends them; names seen at most.
_SPELLING = {}
MAX_SPELLINGS = 256


def _header_name(header):
    return header[0]


_date = (None, "")  # (whole second, its HTTP date)


def _http_date(when):
    """``Date``'s value at ``when`` (waitress's ``build_http_date``), made once a second."""
    global _date
    second = int(when)
    made = _date
    if made[0] != second:
        _date = made = (second, build_http_date(second))
    return made[1]


def _common_environ(server):
    """The part of waitress's WSGI environment that is the same for every request to ``server``."""
    adj = server.adj
    return {"SERVER_PORT": str(server.effective_port), "SERVER_NAME": server.server_name,
            "SERVER_SOFTWARE": adj.ident, "SCRIPT_NAME": adj.url_prefix, "wsgi.version": (1, 0),
            "wsgi.errors": sys.stderr, "wsgi.multithread": True, "wsgi.multiprocess": False,
            "wsgi.run_once": False, "wsgi.file_wrapper": ReadOnlyFileBasedBuffer, "wsgi.input_terminated": True}


# A request header's key in waitress's parsed headers -> its WSGI environment key; keys seen at most.
_ENVIRON_NAMES = {}
MAX_ENVIRON_NAMES = 256


def _environ_name(key):
    name = "CONTENT_LENGTH" if key == "CONTENT_LENGTH" else "CONTENT_TYPE" if key == "CONTENT_TYPE" else "HTTP_" + key
    if len(_ENVIRON_NAMES) < MAX_ENVIRON_NAMES:
        _ENVIRON_NAMES[key] = name
    return name


class KeepAliveTask(WSGITask):
    """waitress's task, keeping an HTTP/1.1 connection open after an answer that has no
    body by definition (1xx, 204, 304), sending a whole answer with its head in one
    system call (:meth:`write`), and running the app's ``AFTER_ANSWER`` work once the
    answer is sent.

    waitress closes the connection after a bodiless answer because it carries no
    Content-Length, though it ends at its headers (RFC 9112 §6.3): every ``304`` cost the
    client a new connection, more than the answer itself."""

    def get_environment(self):
        """waitress's WSGI environment (3.0.2's ``get_environment``), with ``AFTER_ANSWER``,
        made from what does not change between requests made once: the server's part once
        per listener, the client's once per connection, each header's key once per name.

        The connection's part holds nothing that points back at the connection (its
        ``waitress.client_disconnected`` is added to each request's): a closed connection is
        freed at once, not left in a reference cycle for the garbage collector, whose full
        collection of a flood's thousands of them held the interpreter for hundreds of
        milliseconds (tests/test_server.py, bench/attacks.py's key guesser)."""
        environ = self.environ
        if environ is not None:
            return environ
        request, channel = self.request, self.channel
        server = channel.server
        common = server.__dict__.get("common_environ")
        if common is None:
            common = server.common_environ = _common_environ(server)
        client = channel.__dict__.get("client_environ")
        if client is None:
            addr = channel.addr
            client = channel.client_environ = {"REMOTE_ADDR": addr[0], "REMOTE_HOST": addr[0],
                                               "REMOTE_PORT": str(addr[1])}
        path = request.path
        if path[:2] == "//":
            path = "/" + path.lstrip("/")  # extra slashes at its start stripped, as waitress does
        url_prefix = common["SCRIPT_NAME"]
        if url_prefix:
            if path == url_prefix:
                path = ""
            elif path.startswith(url_prefix + "/"):
                path = path[len(url_prefix):]
        environ = {**common, **client, "REQUEST_METHOD": request.command.upper(),
                   "SERVER_PROTOCOL": "HTTP/%s" % self.version, "PATH_INFO": path,
                   "REQUEST_URI": request.request_uri, "QUERY_STRING": request.query,
                   "wsgi.url_scheme": request.url_scheme, "wsgi.input": request.get_body_stream(),
                   "waitress.client_disconnected": channel.check_client_disconnected, AFTER_ANSWER: []}
        for key, value in request.headers.items():
            name = _ENVIRON_NAMES.get(key)
            if name is None:
                name = _environ_name(key)
            if name not in environ:
                environ[name] = value
        self.environ = environ
        return environ

    def service(self):
        try:
            super().service()  # the answer is written to the socket as it is made
        finally:
            environ = self.environ
            for work in environ.get(AFTER_ANSWER, ()) if environ is not None else ():
                work()

    def write(self, data):
        """The first write of a whole answer (its Content-Length bytes at once, as the front
        door gives every answer) goes out with the head in one system call
        (:meth:`JsonErrorChannel.write_answer`), and so does the head of an answer that has
        no body (a ``304``), not through waitress's buffers; any other write as waitress
        writes it."""
        if not self.wrote_header and self.complete and not self.chunked_response:
            if data and self.content_length == len(data) and self.has_body:
                head = self.build_response_header()
                self.wrote_header = True
                self.content_bytes_written += len(data)
                self.channel.write_answer(head, data)
                return
            if not data and not self.has_body:  # a 304's head, alone
                head = self.build_response_header()
                self.wrote_header = True
                self.channel.write_answer(head, b"")
                return
        super().write(data)

    def build_response_header(self):
        """waitress's ``build_response_header`` (3.0.2), but each header name's spelling
        (``x-data-revision`` -> ``X-Data-Revision``) is worked out once per name and the
        ``Date`` once a second: most of a ``304`` is its head, and waitress split and
        capitalized every name of every answer."""
        version = self.version
        connection = self.request.headers.get("CONNECTION", "").lower()
        response_headers = []
        content_length_header = date_header = server_header = None
        for headername, headerval in self.response_headers:
            spelled = _SPELLING.get(headername)
            if spelled is None:
                spelled = "-".join([part.capitalize() for part in headername.split("-")])
                if len(_SPELLING) < MAX_SPELLINGS:
                    _SPELLING[headername] = spelled
            headername = spelled
            if headername == "Content-Length":
                if self.has_body:
                    content_length_header = headerval
                else:
                    continue
            elif headername == "Date":
                date_header = headerval
            elif headername == "Server":
                server_header = headerval
            response_headers.append((headername, headerval))
        self.response_headers = response_headers
        if content_length_header is None and self.content_length is not None and self.has_body:
            content_length_header = str(self.content_length)
            response_headers.append(("Content-Length", content_length_header))
        if version == "1.0":
            if connection == "keep-alive":
                if not content_length_header:
                    self.set_close_on_finish()
                else:
                    response_headers.append(("Connection", "Keep-Alive"))
            else:
                self.set_close_on_finish()
        elif version == "1.1":
            if connection == "close":
                self.set_close_on_finish()
            if not content_length_header:
                # RFC 7230: no Transfer-Encoding or Content-Length for a 1xx, 204 or 304.
                if self.has_body:
                    response_headers.append(("Transfer-Encoding", "chunked"))
                    self.chunked_response = True
                if not self.close_on_finish:
                    self.set_close_on_finish()
        else:
            raise AssertionError("neither HTTP/1.0 or HTTP/1.1")
        ident = self.channel.server.adj.ident
        if not server_header:
            if ident:
                response_headers.append(("Server", ident))
        else:
            response_headers.append(("Via", ident or "waitress"))
        if not date_header:
            response_headers.append(("Date", _http_date(self.start_time)))
        # A stable sort: headers of one name keep their order (RFC 9110 5.3).
        lines = [f"HTTP/{self.version} {self.status}",
                 *["%s: %s" % header for header in sorted(response_headers, key=_header_name)]]
        return ("%s\r\n\r\n" % "\r\n".join(lines)).encode("latin-1")

    def set_close_on_finish(self):
        asked_to_close = (self.version != "1.1"
                          or self.request.headers.get("CONNECTION", "").lower() == "close")
        if self.has_body or asked_to_close:
            super().set_close_on_finish()


class AddressGate:
    """What one client address may hold of a listener: at most ``cap`` connections open at
    once (``cap`` 0: no cap).

    Behind ``trusted_proxies`` reverse proxies every connection comes from a proxy, which
    carries many visitors over each of its connections (nginx keeps a few open to the
    upstream for everyone): a cap on the proxy's address would refuse everyone at once. The
    proxy caps each visitor's connections (``limit_conn`` in docs/nginx.conf.example); here
    ``cap`` counts each forwarded address's requests in progress (received and not yet
    answered), taken from ``X-Forwarded-For`` as the rate limits take it (Werkzeug's
    ``ProxyFix``: the ``trusted_proxies``-th address from the right).
    """

    def __init__(self, cap, trusted_proxies=0):
        self.cap = cap
        self.trusted_proxies = trusted_proxies
        self._held = {}  # address -> connections open, or requests in progress behind proxies
        self._lock = threading.Lock()
        self.refused = 0  # since the last warning
        self._warn_at = 0.0

    @property
    def counts_connections(self):
        return self.cap > 0 and self.trusted_proxies == 0

    @property
    def counts_forwarded(self):
        return self.cap > 0 and self.trusted_proxies > 0

    def take(self, address):
        """Count one more for ``address``; False (nothing counted) when it holds ``cap`` already."""
        with self._lock:
            held = self._held.get(address, 0)
            if held >= self.cap:
                self.refused += 1
                return False
            self._held[address] = held + 1
            return True

    def give_back(self, address):
        with self._lock:
            held = self._held.get(address, 0) - 1
            if held > 0:
                self._held[address] = held
            else:
                self._held.pop(address, None)

    def forwarded_address(self, headers):
        """The client address a trusted proxy forwarded in ``headers`` (waitress's parsed
        headers), or None when there is none to trust."""
        if not self.counts_forwarded:
            return None
        return forwarded_address(headers, self.trusted_proxies)

    def warn_now(self, interval=10.0):
        """Whether to log the refusals counted since the last warning (once per ``interval``)."""
        now = time.monotonic()
        if not self.refused or now < self._warn_at:
            return 0
        with self._lock:
            refused, self.refused = self.refused, 0
        self._warn_at = now + interval
        return refused


def forwarded_address(headers, trusted_proxies):
    """The client address that ``trusted_proxies`` proxies forwarded in ``headers`` (waitress's
    parsed headers), as the rate limits take it (the ``trusted_proxies``-th from the right),
    or None."""
    values = [value.strip() for value in headers.get("X_FORWARDED_FOR", "").split(",")]
    return values[-trusted_proxies] or None if len(values) >= trusted_proxies else None


class BodilessRequestParser(HTTPRequestParser):
    """waitress's request parser for an API that takes no request body: a request that
    declares one, or sends ``Expect``, is complete (as an error) once its headers are in.

    Behind trusted proxies it also counts the forwarded address's requests in progress
    (:class:`AddressGate`); ``gate`` is the listener's."""

    gate = None
    counted = None  # the forwarded address this request is counted under
    origin = None  # the Origin of a head cut short at the header limit, from its whole lines

    def __init__(self, adj, gate=None):
        super().__init__(adj)
        self.started = time.time()  # the request's first byte: its headers' deadline counts from here
        if gate is not None:
            self.gate = gate

    def received(self, data):
        finished = self.headers_finished
        consumed = super().received(data)
        if isinstance(self.error, RequestHeaderFieldsTooLarge) and not finished:
            # waitress parsed none of the head (it stops at the limit, keeping what came before
            # this data): its Origin is read from the head's whole lines, for the answer's CORS.
            self.origin = origin_in(self.header_plus + data)
        if not finished and self.headers_finished and self.error is None and not self.empty:
            self.error = self._refusal()
            if self.error is not None:
                # Complete now, without reading a body or sending "100 Continue"; what the
                # client sends after its headers is never read (the connection closes).
                self.completed, self.expect_continue, self.body_rcv = True, False, None
                consumed = len(data)
        return consumed

    def _refusal(self):
        if "EXPECT" in self.headers:
            return ExpectationFailed("the API takes no request body")
        if self.chunked or self.content_length > 0:
            return RequestEntityTooLarge("the API takes no request body")
        gate = self.gate
        if gate is not None and gate.counts_forwarded:
            address = gate.forwarded_address(self.headers)
            if address is not None:
                if not gate.take(address):
                    return TooManyRequests("too many requests in progress from one address")
                self.counted = address
        return None

    def close(self):
        counted, self.counted = self.counted, None
        if counted is not None:
            self.gate.give_back(counted)
        super().close()


def origin_in(head):
    """The ``Origin`` header's value among the whole lines of a request ``head`` (bytes, maybe
    cut short, maybe followed by its body); None when there is no such line, or more than one."""
    end = head.find(b"\r\n\r\n")
    lines = (head[:end + 2] if end >= 0 else head).split(b"\r\n")[1:-1]  # the last may be cut short
    found = [line[7:].strip() for line in lines if line[:7].lower() == b"origin:"]
    return found[0].decode("latin-1") if len(found) == 1 else None


_SENDMSG = hasattr(socket.socket, "sendmsg")  # not on Windows
# Seconds the loop waits for a worker writing to a connection to let it send (the lock).
FLUSH_WAIT = 0.01
# Seconds the worker that answered a quick client waits for its next request (read_next).
NEXT_REQUEST_WAIT = 0.0005


class JsonErrorChannel(HTTPChannel):
    """waitress's connection, with the service's tasks and request parser; once a request
    is served and no other waits for a worker, the access lines held meanwhile are written
    (:func:`app.door.access_log.write_held`): under load in one system call for many requests.

    What one connection may hold is bounded, so that a client that pipelines and reads
    slowly holds buffers, never a worker thread:

    - at most ``pipeline_depth`` of its requests are read and not yet answered; the rest of
      what it sent is kept unparsed (:attr:`held`, at most one read) and the socket is not
      read until they are answered, so TCP holds the client back;
    - its next request goes to a worker only once the answer before it has been handed to
      the socket (:meth:`park`): waitress would serve it at once, into a buffer behind the
      first, and its worker would wait, holding the thread, once the buffers pass
      ``outbuf_high_watermark`` (16 MB) for a reader that takes a byte a second;
    - a finished answer waits at most ``send_timeout`` seconds for its reader to take it
      (:attr:`owed_since`, swept by :func:`_maintenance`); then the connection is closed.
    """

    task_class = KeepAliveTask
    error_task_class = JsonErrorTask
    spoke = False  # whether a request has begun on this connection
    counted = None  # the address under which the listener's gate counts this connection
    peer = None  # the client's address, under which the listener keeps this connection
    parked = False  # a request waits for the answer before it to leave the buffers
    owed_since = None  # monotonic time since when a finished answer waits for its reader
    held = b""  # what the client sent past its pipeline depth, read once requests are answered
    pipeline_depth = DEFAULT_PIPELINE_DEPTH
    check_at = math.inf  # when its loop looks at its timeouts next (ChannelLoop)
    quick = False  # its client sends its next request as soon as an answer reaches it
    answered = 0.0  # monotonic time when its last request's worker had finished

    def __init__(self, server, sock, addr, adj, map=None):
        super().__init__(server, sock, addr, adj, map)
        gate = getattr(server, "gate", None)
        if gate is not None:
            self.parser_class = functools.partial(BodilessRequestParser, gate=gate)
        else:
            self.parser_class = BodilessRequestParser
        self.pipeline_depth = getattr(server, "pipeline_depth", DEFAULT_PIPELINE_DEPTH)
        self.reading = threading.Lock()  # held to read the socket and parse what was read

    def readable(self):
        return not self.held and super().readable()

    def handle_read(self):
        """waitress's (3.0.2), under :attr:`reading`; nothing to read is no error (the
        worker serving a quick client read it first: :meth:`read_next`)."""
        with self.reading:
            try:
                data = self.recv(self.adj.recv_bytes)
            except BlockingIOError:
                return
            except OSError:
                if self.adj.log_socket_errors:
                    self.logger.exception("Socket error")
                self.handle_close()
                return
            if data:
                self.last_activity = time.time()
                self.received(data)
            else:
                self.connected = False  # the client closed

    def received(self, data):
        """waitress's ``received``, which stops once ``pipeline_depth`` requests wait and
        keeps the rest of ``data`` (:attr:`held`) for when they are answered."""
        if not data and not self.held:
            return False
        if data:
            self.spoke = True
        with self.requests_lock:
            if self.will_close or self.close_when_flushed:
                return False
            data = self.held + data
            self.held = b""
            while data:
                if len(self.requests) >= self.pipeline_depth:
                    self.held = data  # read again when the requests before it are answered
                    break
                if self.request is None:
                    self.request = self.parser_class(self.adj)
                request = self.request
                consumed = request.received(data)
                if request.expect_continue and request.headers_finished and not self.requests \
                        and not self.sent_continue:
                    self.send_continue()
                if request.completed:
                    self.sent_continue = False
                    if not request.empty:
                        self.requests.append(request)
                        if len(self.requests) == 1:
                            self.server.add_task(self)
                    self.request = None
                if consumed >= len(data):
                    break
                data = data[consumed:]
        return True

    def _flush_some_if_lockable(self, do_close=True):
        """waitress's, which the loop calls to send while a worker serves the connection, but
        waiting up to ``FLUSH_WAIT`` seconds for the lock, not giving up at once: a worker
        holds it only while it hands bytes to the socket, which does not block. Given up at
        once, the loop was asked again at once, turn after turn, and held the interpreter
        the worker needed to finish: a ``304`` whose head the loop saw before the worker had
        sent it cost a thousand empty turns."""
        if self.outbuf_lock.acquire(timeout=FLUSH_WAIT):
            try:
                self._flush_some(do_close=do_close)
                if self.total_outbufs_len < self.adj.outbuf_high_watermark:
                    self.outbuf_lock.notify()
            finally:
                self.outbuf_lock.release()

    def read_ahead(self):
        """Read what the client sent while its one request is being served, when nothing else
        waits (no request past it, nothing to send, not closing), into :attr:`held`, which the
        request's worker reads once it has answered (:meth:`service`); whether it was read.
        A keep-alive client sends its next request as soon as the answer reaches it, before
        the worker has finished with the request: waitress stopped reading the socket until
        then and was woken to read it again. Nothing is read at the end of the stream (the
        client may still read the answer) or past one read. A client whose request is read
        ahead is quick (:attr:`quick`): its worker reads its next ones (:meth:`read_next`)."""
        if self.held or len(self.requests) != 1 or self.total_outbufs_len or self.will_close \
                or self.close_when_flushed or not self.connected:
            return False
        with self.reading:
            data = self._read_now()
            if not data:
                return False  # the end of its stream: seen again once the request is answered
            self.spoke = True
            with self.requests_lock:
                if self.requests:  # its worker reads it (service), after answering
                    self.held = data
                    return True
            self.received(data)  # answered meanwhile: read here, as the loop reads
            return True

    def park(self):
        """Whether this connection's next request waits, not given to a worker, because the
        answer before it is not all handed to the socket yet; :meth:`handle_write` gives it
        to the workers once it is."""
        if not self.total_outbufs_len:  # all sent (the common case): nothing can be added meanwhile,
            return False                # since no worker serves this connection now
        with self.outbuf_lock:
            if self.total_outbufs_len and self.connected and not self.will_close:
                self.parked = True
                return True
            return False

    def handle_write(self):
        super().handle_write()
        if self.total_outbufs_len or not self.connected:
            return
        self.owed_since = None
        if self.parked:
            with self.outbuf_lock:
                resume, self.parked = self.parked, False
            if resume and self.requests and not (self.will_close or self.close_when_flushed):
                self.server.add_task(self)

    def owed_for(self, now):
        """Seconds a finished answer of this connection has waited for its reader (0: none)."""
        since = self.owed_since
        if since is None:
            return 0
        if not self.total_outbufs_len:
            self.owed_since = None
            return 0
        return now - since

    def header_started(self):
        """When the headers this connection owes began: its opening, or the first byte of a
        request whose headers are not all in; None when it owes none (it is being served,
        or is idle between requests, which ``CHANNEL_TIMEOUT`` bounds)."""
        if self.requests:
            return None
        request = self.request
        if request is None:
            return None if self.spoke else self.creation_time
        return None if request.headers_finished else request.started

    def write_answer(self, head, body):
        """Send an answer's ``head`` and ``body`` in one ``sendmsg(2)`` from the bytes as
        they are, when nothing waits to be sent before them; what the socket does not take
        now goes to waitress's :meth:`write_soon`, which queues it for the server's loop.

        waitress sends the head, then copies a body over 8 kB into a buffer and out of it
        again before sending it: for a 72 kB page of results, two system calls and two
        copies of the page per request (docs/performance.md)."""
        with self.outbuf_lock:
            if self.total_outbufs_len or not self.connected or not _SENDMSG:
                self.write_soon(head)  # in order, after what waits (the lock is re-entrant)
                self.write_soon(body)
                return
            try:
                sent = self.socket.sendmsg((head, body))
            except OSError:  # would block, or the client went: waitress's own write meets it
                sent = 0
            if sent:
                self.last_activity = time.time()
            if sent < len(head) + len(body):
                self.write_soon((head + body)[sent:])  # queued, and sent by the server's loop

    def service(self):
        self.owed_since = None  # an answer is being made: its worker writes it
        _serving.channel = self  # what the loop is woken for (ChannelLoop.wake)
        _serving.reads_next = self.quick
        try:
            super().service()
        finally:
            _serving.reads_next = False
            if self.total_outbufs_len:  # the answer is written: only the loop's sending lowers it now
                with self.outbuf_lock:
                    if self.total_outbufs_len and self.connected:
                        self.owed_since = time.monotonic()
            if self.held and not self.requests and self.connected:
                self.received(b"")  # what waited past the pipeline depth, now that the rest is served
                self.server.pull_trigger()  # the loop reads the socket again
            elif self.quick and not self.requests and not self.read_next():
                self.quick = False
                if self.connected:
                    self.server.pull_trigger()  # the loop reads it again
            _serving.channel = None
            self.answered = time.monotonic()
            if not self.server.task_dispatcher.queue:
                write_held()

    def read_next(self):
        """Read and parse this quick client's next request in the worker that answered the
        one before, when no other request waits for a worker, waiting for it at most
        ``NEXT_REQUEST_WAIT``; whether a request was queued (this worker takes it:
        :meth:`HealthFirstDispatcher.add_task`). The loop does not watch the socket meanwhile
        (:meth:`ChannelLoop.turn`); when nothing came, or only part of a request, it is
        watched again and the client is no longer quick.

        Read by the loop, the next request cost two thread switches (the loop woken by
        epoll, a worker woken for the request), and the loop, woken while the worker still
        held the interpreter, waited for it."""
        if self.will_close or self.close_when_flushed or not self.connected or self.total_outbufs_len \
                or self.request is not None or self.server.task_dispatcher.queue:
            return False
        if not self.reading.acquire(blocking=False):
            return False  # the loop reads it
        try:
            if self.requests or self.held or self.request is not None:
                return False
            data = self._read_now(wait=NEXT_REQUEST_WAIT)
            if not data:
                return False
            self.received(data)
            if self.requests:
                return True
            request = self.request
            loop = self.server.event_loop
            if request is not None and loop is not None and loop.header_timeout:
                loop.schedule(self, request.started + loop.header_timeout)
            return False
        finally:
            self.reading.release()

    def _read_now(self, wait=0.0):
        """One read of what the client sent, by a thread other than the loop's, waiting up to
        ``wait`` seconds for it (the interpreter let go meanwhile); b"" when nothing came, the
        stream ended or the socket failed: the loop's own read sees which."""
        try:
            data = self.socket.recv(self.adj.recv_bytes)
        except BlockingIOError:
            if not wait or not select.select((self._fileno,), (), (), wait)[0]:
                return b""
            try:
                data = self.socket.recv(self.adj.recv_bytes)
            except OSError:
                return b""
        except OSError:
            return b""
        if data:
            self.last_activity = time.time()
        return data

    def add_channel(self, map=None):
        super().add_channel(map)
        loop = getattr(self.server, "event_loop", None)
        if loop is not None:
            loop.added(self)

    def share_address(self):
        """The address whose share of worker threads this connection's request counts
        against: the client's, or behind trusted proxies the forwarded one. waitress's own
        error answers (a ``429`` over the cap, a ``400``) take no time: they count for none."""
        gate = getattr(self.server, "gate", None)
        requests = self.requests
        if requests and requests[0].error is not None:
            return object()  # an address of its own
        if gate is not None and gate.trusted_proxies and requests:
            forwarded = forwarded_address(requests[0].headers, gate.trusted_proxies)
            if forwarded is not None:
                return forwarded
        return self.addr[0] if isinstance(self.addr, tuple) and self.addr else self.addr

    def del_channel(self, map=None):
        loop = getattr(self.server, "event_loop", None)
        if loop is not None and self._fileno is not None:
            loop.removed(self._fileno)  # before its descriptor is closed, and maybe reused
        counted, self.counted = self.counted, None
        if counted is not None:
            self.server.gate.give_back(counted)
        peer, self.peer = self.peer, None
        if peer is not None:
            held = self.server.channels_of.get(peer)
            if held is not None:
                held.pop(self, None)
                if not held:
                    del self.server.channels_of[peer]
        if self.parked:  # its requests never reach a worker: they are given up here
            with self.requests_lock:
                self.parked = False
                for request in self.requests:
                    request.close()
                self.requests = []
        super().del_channel(map)


class FairQueue:
    """The requests waiting for a worker, in a queue per client address, taken in turn: an
    address whose request was just taken goes behind every other that waits, and one that
    already holds ``share`` workers waits for one of them. One address (a client, or a
    crowd of connections from one place) never holds more than its share of the threads,
    and a request from anyone else is next but a few, however many that address queued.

    Used as waitress's ``queue`` (``append``, ``popleft``, ``len``), under the dispatcher's
    lock; :meth:`take` and :meth:`done` are the fair order the dispatcher's workers follow.
    """

    def __init__(self, share):
        self.share = max(1, share)
        self.waiting = OrderedDict()  # address -> deque of tasks, in turn
        self.busy = {}  # address -> workers serving it
        self.length = 0

    def __len__(self):
        return self.length

    def append(self, task, address=None):
        self.waiting.setdefault(address, deque()).append(task)
        self.length += 1

    def ready(self):
        """Whether a waiting request's address is under its share."""
        busy, share = self.busy, self.share
        if not busy:  # no address holds a worker (the common case): any that waits may go
            return bool(self.waiting)
        for address in self.waiting:
            if busy.get(address, 0) < share:
                return True
        return False

    def take(self):
        """``(task, address)``: the first address in turn that is under its share, its oldest
        request; IndexError when none may go."""
        busy, share = self.busy, self.share
        for address, tasks in self.waiting.items():
            if busy.get(address, 0) < share:
                task = tasks.popleft()
                if tasks:
                    self.waiting.move_to_end(address)  # its turn is over: the others' next
                else:
                    del self.waiting[address]
                busy[address] = busy.get(address, 0) + 1
                self.length -= 1
                return task, address
        raise IndexError("no address under its share waits")

    def done(self, address):
        held = self.busy.get(address, 0) - 1
        if held > 0:
            self.busy[address] = held
        else:
            self.busy.pop(address, None)

    def popleft(self):
        """Any waiting task, whatever its share (waitress's shutdown cancels them)."""
        address, tasks = next(iter(self.waiting.items()))
        task = tasks.popleft()
        if not tasks:
            del self.waiting[address]
        self.length -= 1
        return task


# The dispatcher whose worker this thread is (HealthFirstDispatcher.handler_thread).
_worker = threading.local()


class HealthFirstDispatcher(ThreadedTaskDispatcher):
    """waitress's worker threads, woken last-in first-out (:class:`LastInFirstOut`), taking
    requests in turn by client address, each address at most ``share`` threads at once
    (:class:`FairQueue`), and one more thread of its own for ``/healthz``.

    A worker that queues its connection's next request (read while it answered the one
    before), when no other request waits, takes it itself once it returns: no other thread
    is woken for it (waitress woke one, which found it taken, or took it while this one
    went to sleep: a thread switch or two a request).

    A load balancer's health check must be answered within a second even while every
    worker is held by API requests waiting on a database that hangs (each up to the
    database deadline) or by a burst of traffic: it never queues behind them.
    """

    PATHS = frozenset({"/healthz"})

    def __init__(self, share=None, threads=4):
        super().__init__()
        self.queue = FairQueue(share if share else math.ceil(threads / 2))
        self.queue_cv = LastInFirstOut(self.lock)  # before any worker thread waits on it
        self.health = ThreadedTaskDispatcher()
        self.health.set_thread_count(1)

    def add_task(self, task):
        park = getattr(task, "park", None)
        if park is not None and park():
            return  # its connection gives it to the workers once the answer before it is sent
        requests = getattr(task, "requests", None)
        if requests and getattr(requests[0], "path", None) in self.PATHS:
            self.health.add_task(task)
            return
        share_address = getattr(task, "share_address", None)
        address = share_address() if share_address is not None else None
        with self.lock:
            taker = not self.queue.length and getattr(_worker, "dispatcher", None) is self
            self.queue.append(task, address)
            if not taker:  # else the worker adding it takes it (handler_thread)
                self.queue_cv.notify()
            queue_size = len(self.queue)
            idle_threads = len(self.threads) - self.stop_count - self.active_count + taker
            if queue_size > idle_threads:
                self.queue_logger.warning("Task queue depth is %d", queue_size - idle_threads)

    def handler_thread(self, thread_no):
        """waitress's worker, taking the requests in :class:`FairQueue`'s order."""
        queue = self.queue
        address = done = None
        _worker.dispatcher = self
        while True:
            with self.lock:
                if done:  # the request served last: its address's worker is free (one lock a request)
                    queue.done(address)
                    done = False
                while self.stop_count == 0 and not (queue.length and queue.ready()):
                    self.active_count -= 1
                    self.queue_cv.wait()
                    self.active_count += 1
                if self.stop_count > 0:
                    self.active_count -= 1
                    self.stop_count -= 1
                    self.threads.discard(thread_no)
                    self.thread_exit_cv.notify()
                    if queue.length:  # one it queued for itself (add_task): another takes it
                        self.queue_cv.notify()
                    break
                task, address = queue.take()
                done = True
            try:
                task.service()
            except BaseException:
                self.logger.exception("Exception when servicing %r", task)

    def shutdown(self, cancel_pending=True, timeout=5):
        self.health.shutdown(cancel_pending, timeout)
        return super().shutdown(cancel_pending, timeout)


# Connections accepted at most in one turn of waitress's loop, and refused at most (a
# refusal costs far less: the waiting connections are all reached in a turn or two, so a
# newcomer does not wait behind hundreds that keep coming back to be refused); connections
# past the limit at once while the ones closed to make room for them wait for the next turn.
ACCEPT_AT_ONCE = 64
REFUSE_AT_ONCE = 256
ROOM_AT_ONCE = ACCEPT_AT_ONCE

_REFUSAL_BODY = json.dumps({"code": 429, "status": "Too Many Requests",
                            "message": "Too many connections from this address; close some and "
                                       "try again."}).encode()


def refusal(headers=()):
    """The whole answer to a connection over its address's cap, with ``headers`` (its CORS
    headers) too."""
    extra = b"".join(f"{name}: {value}\r\n".encode("latin-1") for name, value in headers)
    return (b"HTTP/1.1 429 Too Many Requests\r\nContent-Type: application/json\r\n"
            b"Cache-Control: no-store\r\nRetry-After: %d\r\n%sConnection: close\r\nContent-Length: %d\r\n\r\n"
            % (RETRY_AFTER, extra, len(_REFUSAL_BODY))) + _REFUSAL_BODY


REFUSAL = refusal()

# A child of the service's logger: written as its JSON lines (app/door/access_log.py).
_log = logging.getLogger("festival_api.connections")


# How long (seconds) a refused connection is kept half-closed for the rest of its request,
# and how many are kept so at once; past that they are closed at once.
LINGER_SECONDS = 2
LINGER_AT_ONCE = 32


def _refuse(conn, listener):
    """Answer a connection over its address's cap ``429`` (the listener's refusal) without
    waiting and shut its sending side. It is then kept a while (at most ``LINGER_AT_ONCE``
    at once), its incoming bytes read and dropped by :func:`_linger`, before it is closed:
    closing a socket with bytes unread, or that bytes reach later, sends a reset, and a
    reset can overtake the answer on the client's side (a client whose request came just
    after its connection was accepted read "Connection reset by peer", not the ``429``)."""
    try:
        conn.setblocking(False)
        conn.send(listener.refusal)
        conn.shutdown(socket.SHUT_WR)
    except OSError:
        conn.close()
        return
    if len(listener.lingering) < LINGER_AT_ONCE:
        listener.lingering.append((time.monotonic() + LINGER_SECONDS, conn))
    else:
        _drained(conn)
        conn.close()


# How long (seconds) a connection refused at CONNECTION_LIMIT waits for its 429, and how many
# wait so at once (past that they are answered at once).
HOLD_SECONDS = 1
HOLD_AT_ONCE = 512
# Those refused at most in one turn of the loop once their time has come (the rest in the next).
HELD_BACK_AT_ONCE = 64


def _hold_back(conn, listener):
    """Refuse ``conn``, come at the connection limit from an address holding as many as any
    other, ``HOLD_SECONDS`` from now (:func:`_linger` answers it): not polled meanwhile, it
    costs the loop nothing. A crowd that opens a new connection as soon as one is refused
    otherwise comes back thousands of times a second, and each newcomer waits behind
    those in the kernel's queue."""
    if len(listener.held_back) < HOLD_AT_ONCE:
        listener.held_back.append((time.monotonic() + HOLD_SECONDS, conn))
    else:
        _refuse(conn, listener)


def _drained(conn, chunks=16):
    """Read and drop what ``conn`` holds, at most ``chunks`` reads (a client sending without
    pause cannot hold the loop); whether the client has closed (or it is gone)."""
    try:
        for _ in range(chunks):
            if not conn.recv(65536):
                return True
        return False
    except BlockingIOError:
        return False
    except OSError:
        return True


def _linger(listener):
    """Close the refused connections kept by :func:`_refuse` whose client has closed or
    whose ``LINGER_SECONDS`` are over; drop what the others sent. Run on each accept and
    each sweep of the loop (every ``SWEEP_SECONDS``). Refuse the connections held back by
    :func:`_hold_back` whose time has come."""
    held_back = listener.held_back
    if held_back:
        now = time.monotonic()
        for _ in range(HELD_BACK_AT_ONCE):
            if not held_back or held_back[0][0] > now:
                break
            _refuse(held_back.popleft()[1], listener)
    if listener.lingering:
        now = time.monotonic()
        kept = []
        for deadline, conn in listener.lingering:
            if _drained(conn) or now > deadline:
                conn.close()
            else:
                kept.append((deadline, conn))
        listener.lingering = kept


def _biggest(channels_of):
    """The address holding the most connections (None when none is open)."""
    return max(channels_of, key=lambda address: len(channels_of[address]), default=None)


def _make_room(listener, peer, biggest):
    """At the connection limit, room for a new connection from ``peer``: one connection of
    ``biggest``, the address that holds the most, is closed at once, if ``peer`` holds less
    than half as many and one of that address's connections is not being served (it owes its
    headers, is idle between requests, or is past a deadline), the oldest such; whether room
    was made. Addresses that hold
    about as many as each other never take each other's connections.

    Without it a full server leaves every newcomer in the kernel's queue until a connection
    closes: 25 addresses keeping 100 silent connections each held every other client
    ``HEADER_TIMEOUT`` seconds (p50 4.8 s)."""
    channels_of = listener.channels_of
    held = channels_of.get(biggest)
    if not held:
        return False
    mine, most = len(channels_of.get(peer, ())), len(held)
    if most < 2 or mine * 2 >= most:
        return False
    for channel in held:
        if channel.requests or channel.total_outbufs_len:  # being served
            if channel.will_close:
                return True  # closing once its answer is sent: the room is coming
            continue
        request = channel.request
        if not channel.will_close and request is not None and request.headers_finished:
            continue  # its request whole, about to be served
        # Closed now (idle, owing its headers, or past a deadline), not by a later turn of the
        # loop: meanwhile it would count against the limit, and once a turn's rooms reached
        # ROOM_AT_ONCE every newcomer after them, one holding nothing too, would be refused.
        listener.made_room += 1
        channel.handle_close()
        return True
    return False


class Tally:
    """Events counted between log lines, told at most once per ``interval`` seconds
    (:meth:`due`): a line per event would be a flood under an attack."""

    def __init__(self, interval=10.0):
        self.interval, self.count, self._next = interval, 0, 0.0

    def add(self):
        self.count += 1

    def due(self, now):
        """The events since the last line, once ``interval`` has passed (else 0)."""
        if not self.count or now < self._next:
            return 0
        count, self.count = self.count, 0
        self._next = now + self.interval
        return count


def _listening(listener):
    """waitress's listener's ``readable``, which stays readable at the connection limit:
    a newcomer is accepted there, and either room is made for it (:func:`_make_room`) or it
    is refused ``429`` at once; waitress would leave it in the kernel's queue."""
    now = time.time()
    if now >= listener.next_channel_cleanup:
        listener.next_channel_cleanup = now + listener.adj.cleanup_interval
        listener.maintenance(now)
    return listener.accepting


def _accept_waiting(listener):
    """Accept the connections waiting on ``listener``, up to ``ACCEPT_AT_ONCE``; one over its
    address's cap (the listener's :class:`AddressGate`) is refused at once, and one that
    comes at the connection limit, for which no room is made (:func:`_make_room`), a
    second later (:func:`_hold_back`); neither becomes a channel.

    waitress accepts one connection per turn of its loop, and each turn polls every open
    socket: a thousand clients connecting at once took it about a second to accept, and a
    health check that came behind them waited as long."""
    gate = listener.gate
    channels_of = listener.channels_of
    _linger(listener)
    made = refused = 0
    biggest = None  # found once a turn while it stays the biggest: a crowd of addresses costs no more
    while made < ACCEPT_AT_ONCE and refused < REFUSE_AT_ONCE:
        try:
            accepted = listener.accept()
        except OSError:  # a bogus socket from accept(): waitress logs it and goes on
            if listener.adj.log_socket_errors:
                listener.logger.warning("server accept() threw an exception", exc_info=True)
            return
        if accepted is None:
            return  # none waits
        conn, addr = accepted
        peer = addr[0] if isinstance(addr, tuple) and addr else None
        open_now = len(listener._map)
        limit = listener.adj.connection_limit
        if open_now >= limit:
            room = False
            if open_now < limit + ROOM_AT_ONCE:
                if biggest is None:
                    biggest = _biggest(channels_of)
                room = _make_room(listener, peer, biggest)
                if room:
                    biggest = None  # it holds one fewer: found again when next needed
            if not room:
                listener.at_limit.add()
                _hold_back(conn, listener)
                refused += 1
                continue
        address = peer if gate.counts_connections else None
        if address is not None and not gate.take(address):
            _refuse(conn, listener)
            refused += 1
            continue
        made += 1
        try:
            listener.set_socket_options(conn)
            channel = listener.channel_class(listener, conn, listener.fix_addr(addr), listener.adj, map=listener._map)
        except OSError:  # the client went before its connection was set up
            if address is not None:
                gate.give_back(address)
            conn.close()
            continue
        channel.counted = address
        if peer is not None:
            channel.peer = peer
            mine = channels_of.setdefault(peer, {})
            mine[channel] = None
            if biggest is not None and len(mine) > len(channels_of.get(biggest, ())):
                biggest = peer


def _maintenance(listener, idle_maintenance, header_timeout, send_timeout, now):
    """The listener's sweep, every ``SWEEP_SECONDS``: the refused connections whose time is
    over (:func:`_linger`) and the warnings of what was refused or closed. Under
    :class:`ChannelLoop` each connection's timeouts are its own deadlines; on a platform
    without epoll (waitress's own loop) this walks every connection: waitress's close of idle
    ones (``CHANNEL_TIMEOUT``), and :func:`_overdue`'s."""
    _linger(listener)
    if getattr(listener, "event_loop", None) is None:
        idle_maintenance(now)
        monotonic = time.monotonic()
        for channel in listener.active_channels.values():
            if isinstance(channel, JsonErrorChannel) and not channel.will_close:
                _overdue(channel, now, monotonic, header_timeout, send_timeout)
    _warn(listener, send_timeout, now)


def _warn(listener, send_timeout, now):
    """Log what ``listener`` refused or closed since its last warnings (:class:`Tally`)."""
    slow = listener.slow_readers.due(now)
    if slow:
        _log.warning("%d connection(s) closed in the last seconds: a finished answer waited more than "
                     "SEND_TIMEOUT=%ds for the client to read it", slow, send_timeout)
    full = listener.at_limit.due(now)
    if full:
        _log.warning("%d connection(s) refused in the last seconds at CONNECTION_LIMIT=%d: their address held "
                     "as many connections as any other", full, listener.adj.connection_limit)
    refused = listener.gate.warn_now()
    if refused:
        _log.warning("%d connection(s) or request(s) refused in the last seconds: their address already "
                     "held CONNECTIONS_PER_ADDRESS=%d", refused, listener.gate.cap)


def _overdue(channel, now, monotonic, header_timeout, send_timeout, channel_timeout=None):
    """Close ``channel`` (``will_close``: the loop's next turn closes it) when it is past a
    deadline: idle between requests for ``channel_timeout`` seconds (None: waitress's own
    sweep sees to that), owing a request's whole headers for ``header_timeout`` (0: never),
    or holding a finished answer its reader has not taken for ``send_timeout``. Return
    whether it was closed, or else the wall-clock time of its next deadline (``math.inf``
    when it has none now: it is being served, or its answer is being sent)."""
    requests = channel.requests
    following = math.inf
    if channel_timeout is not None and not requests:
        idle_until = channel.last_activity + channel_timeout
        if idle_until <= now:
            channel.will_close = True
            return True
        following = idle_until
    if header_timeout:
        started = channel.header_started()
        if started is not None:
            due = started + header_timeout  # the one sum both tests use: past it or not, never both
            if due <= now:
                channel.will_close = True
                return True
            following = min(following, due)
    if channel.owed_for(monotonic) > send_timeout:
        # Its socket takes nothing, so the loop would never get to close it for will_close
        # (waitress closes in handle_write): shut both ways, the next poll says it hung up
        # and the loop closes it, reset, dropping what the kernel still holds for it.
        with contextlib.suppress(OSError):
            channel.socket.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, _RESET)
            channel.socket.shutdown(socket.SHUT_RDWR)
        channel.will_close = True
        channel.server.slow_readers.add()
        return True
    return following


# SO_LINGER on, 0 seconds: close() resets the connection and drops what its send buffer holds
# (a slow reader's answer would otherwise stay in the kernel, sent at its pace).
_RESET = struct.pack("ii", 1, 0)

# How often (seconds) the loop looks for connections past their header deadline or their
# LINGER_SECONDS.
SWEEP_SECONDS = 1


# A connection's wish to read and to write, in epoll's bits (poll's, which wasyncore reads).
_READ = select.POLLIN | select.POLLPRI
_WRITE = select.POLLOUT
# Connections past a deadline closed at most in one turn of the loop: a crowd opened at
# once is due at once, and is closed over a few turns, others served in between.
CLOSE_AT_ONCE = 32
# Events taken from epoll at most in one turn: the rest stay ready for the next turns (epoll
# hands them round in turn), so a crowd dripping bytes on a thousand connections at once is
# read over a few short turns, a newcomer's request among them.
EVENTS_AT_ONCE = 64

# The connection a worker thread is serving (:meth:`JsonErrorChannel.service`): what a
# worker wakes the loop for.
_serving = threading.local()


def _wants(channel):
    """What ``channel`` asks of its socket now, as wasyncore's ``poll2`` asks it."""
    return (_READ if channel.readable() else 0) | (_WRITE if channel.writable() else 0)


class ChannelLoop:
    """waitress's loop (``wasyncore.loop``) on epoll, whose turn costs the connections that
    did something, not all that are open.

    waitress's loop asks every connection, on every turn, whether it wants to read or write,
    and hands them all to ``poll()``: with 2,500 connections held open by a crowd, a turn
    took milliseconds in Python and in the kernel, and a crowd dripping a byte a second
    turns it all the time; others waited hundreds of milliseconds (docs/performance.md).
    Here each connection stays registered with epoll, and what it asks is asked again only
    of those that had an event, were created, or were handed back by a worker (which wakes
    the loop only when the loop has something to do for it: :meth:`wake`); the listeners and
    the trigger are asked every turn, as before. A connection asks for reads until a read
    finds it not reading (its requests are being served): the common request costs no
    epoll call. A quick client's (one whose next request came while the answer's worker
    finished, read ahead, or within ``NEXT_REQUEST_WAIT`` after) is not watched while
    served: its worker reads its next request (:meth:`JsonErrorChannel.read_next`), and has
    it watched again when none came. Each connection's timeouts (``CHANNEL_TIMEOUT``,
    ``HEADER_TIMEOUT``, ``SEND_TIMEOUT``) are a deadline in a heap, looked at when due, and at
    most ``CLOSE_AT_ONCE`` close in a turn: no sweep walks all connections, and a crowd opened
    at once is not closed in one long turn; a turn takes at most ``EVENTS_AT_ONCE`` events.
    """

    def __init__(self, socket_map, header_timeout, send_timeout, channel_timeout):
        self.map = socket_map
        self.header_timeout, self.send_timeout, self.channel_timeout = header_timeout, send_timeout, channel_timeout
        self.poller = select.epoll()
        self.registered = {}  # descriptor -> the events asked of epoll
        self.others = {}  # descriptor -> a listener or trigger, asked every turn
        self.touched = deque()  # connections whose wishes may have changed since the last turn
        self.deadlines = []  # heap of (when, order, connection): when to look at its timeouts
        self.order = itertools.count()
        self.woken = False  # the trigger is pulled and the loop has not turned since
        self.trigger = None
        self.asking = threading.RLock()  # what epoll is asked, asked by the loop and by workers
        self.stopped = False  # the server is closing: the loop ends at once
        # What stop() wakes the loop with: not the listeners' trigger, which closing the
        # server closes, maybe before the loop has seen it pulled.
        self.stopper, self.stop_sent = socket.socketpair()
        self.poller.register(self.stopper.fileno(), select.POLLIN)

    # What the connections and their workers tell the loop.

    def added(self, channel):
        self.touched.append(channel)
        self.schedule(channel, channel.creation_time + min(self.header_timeout or math.inf, self.channel_timeout))

    def removed(self, fd):
        with self.asking:
            if self.registered.pop(fd, None) is not None:
                with contextlib.suppress(OSError, ValueError):
                    self.poller.unregister(fd)

    def touch(self, channel):
        """From the loop's thread: ``channel``'s wishes changed (it was told to close, say)."""
        self.touched.append(channel)

    def wake(self):
        """The listeners' ``pull_trigger``: a worker wakes the loop, for the connection it is
        serving, only when the loop has to do something for it: send what the socket did not
        take, close it, or ask epoll to read it again. An answer sent whole, on a connection
        epoll still reads, needs no turn of the loop."""
        channel = getattr(_serving, "channel", None)
        if channel is not None:
            fd = channel._fileno
            if fd is not None and not channel.writable():
                if channel.readable() and not self.registered.get(fd, 0) & select.POLLIN \
                        and not getattr(_serving, "reads_next", False):
                    # A read the loop stopped asking for while the request was served (its
                    # client sent the next one as soon as the answer came): asked again here,
                    # without a turn of the loop.
                    with self.asking:
                        if channel._fileno == fd and self.map.get(fd) is channel:
                            self._ask(fd, self.registered.get(fd, 0) | _READ)
                return  # nothing else for the loop
            self.touched.append(channel)
        if not self.woken:
            self.woken = True
            self.trigger._physical_pull()

    def stop(self):
        """End the loop now, not when its wait on epoll (up to ``asyncore_loop_timeout``, a
        second) ends: a closed socket does not wake epoll."""
        self.stopped = True
        with contextlib.suppress(OSError):  # the loop has ended and closed it
            self.stop_sent.send(b"x")

    def schedule(self, channel, when):
        if when < channel.check_at:
            channel.check_at = when
            heapq.heappush(self.deadlines, (when, next(self.order), channel))

    # The loop.

    def run(self, timeout=30.0, use_poll=False, map=None, count=None):
        """waitress's ``wasyncore.loop``, as its servers call it."""
        for fd, obj in list(self.map.items()):
            if isinstance(obj, JsonErrorChannel):
                self.added(obj)
            else:
                self.others[fd] = obj
        try:
            while self.map and not self.stopped and (count is None or count > 0):
                self.turn(timeout)
                if count is not None:
                    count -= 1
        finally:
            if count is None:
                self.stopper.close()
                self.stop_sent.close()

    def turn(self, timeout):
        self.woken = False  # before the connections woken for are read: a later wake pulls again
        socket_map, registered = self.map, self.registered
        for fd, obj in list(self.others.items()):
            if socket_map.get(fd) is not obj:  # closed
                del self.others[fd]
                self.removed(fd)
                continue
            wants = (_READ if obj.readable() else 0) | (_WRITE if obj.writable() and not obj.accepting else 0)
            if wants != registered.get(fd, 0):
                self._ask(fd, wants)
        self._refresh_touched()
        now = time.time()
        self._sweep(now)
        self._refresh_touched()
        wait = timeout
        if self.deadlines:
            wait = max(0.0, min(wait, self.deadlines[0][0] - now))
        try:
            events = self.poller.poll(wait, EVENTS_AT_ONCE)
        except InterruptedError:
            return
        others = self.others
        for fd, flags in events:
            obj = socket_map.get(fd)
            if obj is None:
                self.removed(fd)
                continue
            if fd in others:
                wasyncore.readwrite(obj, flags)
                continue
            wants = _wants(obj)
            if flags == select.POLLIN and not wants and obj.read_ahead():
                # The next request, sent as soon as the answer came, while its worker finishes
                # the one before: kept for that worker (a read it takes, not a turn of the loop).
                if self.header_timeout:
                    self.schedule(obj, time.time() + self.header_timeout)
                if not obj.quick:  # a quick client: its worker reads its next request (service)
                    obj.quick = True
                    self.refresh(obj, exact=True)
                continue
            if not wants or flags & ~(wants | select.POLLERR | select.POLLHUP | select.POLLNVAL):
                self.refresh(obj, exact=True)  # asked for more than it wants now (see refresh)
            flags &= wants | select.POLLERR | select.POLLHUP | select.POLLNVAL
            if not wants or not flags:
                continue  # poll2 would not have asked: nothing for it
            wasyncore.readwrite(obj, flags)
            if obj._fileno is not None:
                if obj.requests and not obj.quick and time.monotonic() - obj.answered < NEXT_REQUEST_WAIT:
                    obj.quick = True  # its request came at once: its worker reads its next (read_next)
                    self.refresh(obj, exact=True)
                else:
                    self.refresh(obj)
                request = obj.request
                if request is not None and self.header_timeout and not request.headers_finished:
                    self.schedule(obj, request.started + self.header_timeout)

    def _refresh_touched(self):
        touched = self.touched
        while touched:
            self.refresh(touched.popleft())

    def refresh(self, channel, exact=False):
        """Ask epoll for what ``channel`` wants now. A read asked for and no longer wanted is
        kept (unless ``exact``) until an event finds the channel not reading: a connection
        whose request is being served costs no epoll call, and its next request, read after
        its answer, none either."""
        fd = channel._fileno
        if fd is None or self.map.get(fd) is not channel:
            return
        wants = _wants(channel)
        had = self.registered.get(fd, 0)
        asked = wants if exact else wants | (had & _READ)
        if asked == had:
            return
        self._ask(fd, asked)
        if had & _READ and not asked & _READ and channel.readable():
            # A worker made it readable after it was asked above, and may have read
            # self.registered before it was changed (and so not woken the loop): asked again.
            self._ask(fd, asked | _READ)

    def _ask(self, fd, events):
        """Have epoll report ``events`` of ``fd`` (none: not watched), from any thread."""
        with self.asking:
            had = self.registered.get(fd, 0)
            if not events:
                if self.registered.pop(fd, None) is not None:
                    with contextlib.suppress(OSError, ValueError):
                        self.poller.unregister(fd)
                return
            self.registered[fd] = events
            try:
                if had:
                    self.poller.modify(fd, events)
                else:
                    self.poller.register(fd, events)
            except FileExistsError:
                self.poller.modify(fd, events)
            except FileNotFoundError:
                self.poller.register(fd, events)
            except OSError:  # closed meanwhile (its close unregisters it): nothing to watch
                self.registered.pop(fd, None)

    def _sweep(self, now):
        """Look at the connections whose deadline has come; close those past one, at most
        ``CLOSE_AT_ONCE``, and put the others' next deadline in the heap."""
        deadlines = self.deadlines
        monotonic = time.monotonic()
        closed = 0
        while deadlines and deadlines[0][0] <= now and closed < CLOSE_AT_ONCE:
            when, _, channel = heapq.heappop(deadlines)
            if when != channel.check_at or channel._fileno is None:
                continue  # an earlier deadline took its place, or it is closed
            channel.check_at = math.inf
            if channel.will_close:
                continue
            following = _overdue(channel, now, monotonic, self.header_timeout, self.send_timeout,
                                 self.channel_timeout)
            if following is True:
                closed += 1
                self.touched.append(channel)
                if channel.server.slow_readers.count:  # a slow reader's: said at once
                    _warn(channel.server, self.send_timeout, now)
                continue
            if channel.requests or channel.total_outbufs_len:  # being served, or its answer sent
                following = min(following, now + SWEEP_SECONDS)
            self.schedule(channel, max(following, now + 0.001))  # never due again in this sweep


class LoopModule:
    """What waitress's servers call as their ``asyncore`` module (``run`` calls its
    ``loop``): :class:`ChannelLoop`'s."""

    dispatcher = wasyncore.dispatcher

    def __init__(self, loop):
        self.loop = loop.run


def create_server(app, connections_per_address=0, trusted_proxies=0, header_timeout=0, cors=None,
                  threads_per_address=0, pipeline_depth=DEFAULT_PIPELINE_DEPTH, send_timeout=DEFAULT_SEND_TIMEOUT,
                  **settings):
    """``waitress.server.create_server`` whose listeners answer waitress's errors in JSON,
    refuse bodies and ``Expect``, cap each address's connections (``connections_per_address``,
    0: none; behind ``trusted_proxies`` its requests in progress), close connections that
    do not send their headers within ``header_timeout`` seconds (0: never), keep connections
    open after a ``304``, run the app's work after the answer (``AFTER_ANSWER``) and accept
    the connections waiting at once. ``cors``: ``origin -> [(name, value)]``, the CORS
    headers of the app's answers for a request's ``Origin`` (None when it has none, or it
    was not read), which waitress's own errors carry too; the ``429`` sent as a connection
    is accepted, before any of its bytes are read, carries those of no ``Origin``: with any
    origin allowed, ``*``. ``settings`` are waitress's."""
    threads = settings.get("threads", 4)
    dispatcher = HealthFirstDispatcher(threads_per_address, threads)
    dispatcher.set_thread_count(threads)
    settings.setdefault("cleanup_interval", SWEEP_SECONDS)
    server = waitress_create_server(app, _dispatcher=dispatcher, **settings)
    sockets = getattr(server, "map", None) or server._map
    loop = None
    if hasattr(select, "epoll"):  # Linux; elsewhere waitress's own loop
        loop = ChannelLoop(sockets, header_timeout, send_timeout, server.adj.channel_timeout)
        server.asyncore = LoopModule(loop)
    for listener in list(sockets.values()):
        if isinstance(listener, BaseWSGIServer):
            listener.event_loop = loop
            if loop is not None:
                loop.trigger = listener.trigger
                listener.pull_trigger = loop.wake
            listener.gate = AddressGate(connections_per_address, trusted_proxies)
            listener.cors = cors
            listener.refusal = refusal(cors(None)) if cors is not None else REFUSAL
            listener.lingering = []
            listener.held_back = deque()  # (when to refuse, connection) refused at the limit
            listener.channels_of = {}  # client address -> its connections, oldest first
            listener.made_room = 0
            listener.slow_readers, listener.at_limit = Tally(), Tally()
            listener.pipeline_depth = pipeline_depth
            listener.channel_class = JsonErrorChannel
            listener.handle_accept = functools.partial(_accept_waiting, listener)
            listener.readable = functools.partial(_listening, listener)
            listener.maintenance = functools.partial(_maintenance, listener, listener.maintenance, header_timeout,
                                                     send_timeout)
    if loop is not None:
        server.close = functools.partial(_close, loop, server.close)
    return server


def _close(loop, close):
    """The server's ``close``, which ends its loop first (:meth:`ChannelLoop.stop`): closing
    returns once the loop has stopped, not up to a second later."""
    loop.stop()
    close()
