"""``festival-api follow SOURCE``: publish by saving the workbook.

A workbook, a .zip or a folder of CSV files on this machine is watched: the file system says
when it is saved (watchdog, watching the file's folder, since a spreadsheet saves by writing
a temporary file and renaming it over the original), and a burst of events that one save
makes is one look. Where it cannot be watched (a network file system, watchdog missing or
refused) its size and time are looked at every second instead. An ``http(s)`` address is
asked every interval with a conditional request, so an unchanged file costs a 304. Every
interval a local source is read whole too, whatever was or was not heard.

When its content changed, it is applied exactly as ``import --update`` does, through
:func:`seed.pipeline.write.update.update_source`: the same checks, the same refusal of a withdrawal of
published records, one transaction. Rows the source held unchanged since follow last
applied it are left out when the festival has not been written since (they would change
nothing); a problem is always said from the whole source. A source that cannot be applied
leaves the last good state served and says why once; it says so again only when the reason
changes, and says when it is over. A file caught mid-save (half written, renamed away) is
read again once it settles, and said only when it stays so.

No Flask here: the command (``app/cli/__init__.py``) gives it a way to print and a stop event.
"""
import collections
import contextlib
import hashlib
import io
import json
import os
import re
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
import zipfile
from email.utils import parsedate_to_datetime
from pathlib import Path
from xml.etree import ElementTree

from seed.pipeline.read.csv_folder import folder_files, read_files, read_zip, section_key
from seed.pipeline.read.limits import MB, cap, check_size
from seed.pipeline.read.problems import FixtureError
from seed.pipeline.read.sources import Source
from seed.pipeline.read.workbook import UnreadableWorkbook, is_workbook, read_workbook

DEFAULT_INTERVAL = 30
# Longest wait for an address to answer; a shorter interval waits no longer than it.
HTTP_TIMEOUT = 10
USER_AGENT = "festival-api-follow"
# How long a local source must be left alone before it is read: one save is a burst of
# events (a temporary file written and renamed over the original, or a file written in
# place); a folder of CSV files longer, as it is copied or saved file by file.
QUIET = 0.2
FOLDER_QUIET = 0.5
# How long content that cannot be read yet (a workbook half written, a file renamed away)
# is given to settle before it is said to be so.
SETTLE = 3.0
# Seconds between looks at the size and time of a local source that cannot be watched.
POLL = 1.0
# Longest burst of events waited out before a look (a folder copied file by file).
LONGEST_BURST = 5.0
# File systems whose changes made elsewhere the kernel does not report (inotify), so a
# source on one is looked at instead of watched.
NETWORK_FILE_SYSTEMS = {"nfs", "nfs4", "cifs", "smb3", "smbfs", "ncpfs", "afs", "9p", "fuse.sshfs", "fuse.rclone",
                        "davfs", "fuse.davfs2", "vboxsf", "ceph", "glusterfs", "fuse.glusterfs", "lustre", "gpfs"}


class Waiting(Exception):
    """The source cannot be looked at now (it does not answer, it is being saved)."""


class Unsettled(Waiting):
    """The source is in the middle of a save (renamed away, changing while read): looked at
    again once it settles, and said only if it stays so for :data:`SETTLE` seconds."""


def _digest(*parts):
    digest = hashlib.sha256()
    for part in parts:
        digest.update(len(part).to_bytes(8, "big"))
        digest.update(part)
    return digest.hexdigest()


def _json(name, content):
    try:
        data = json.loads(content.decode("utf-8-sig"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise FixtureError([("$", f"not valid JSON: {exc}")], Source(name, {})) from None
    return Source(name, data)


def read_content(name, content, sheet=None, festival=None):
    """The :class:`Source` of one file's bytes: a workbook, a .zip of CSV files, JSON, or one
    CSV sheet (``sheet`` says which section; ``festival`` the festival's slug)."""
    check_size(name, len(content))
    if is_workbook(content) or name.lower().endswith((".xlsx", ".xlsm")):
        return read_workbook(bytes(content), name)
    if zipfile.is_zipfile(io.BytesIO(content)):
        return read_zip(io.BytesIO(content), name)
    if content.lstrip()[:1] == b"<":
        raise FixtureError([("$", "a web page came back, not a workbook or a CSV sheet (a sign-in page? the link "
                                  "must download the file itself)")], Source(name, {}))
    if content.lstrip()[:1] in (b"{", b"[") or name.lower().endswith(".json"):
        return _json(name, content)
    if sheet is None or section_key(sheet) is None:
        raise FixtureError([("$", f"{name} is one CSV sheet: say which section it is with --sheet "
                                  "(results, registrations, ...)")], Source(name, {}))
    files = [(f"{section_key(sheet)}.csv", content)]
    if section_key(sheet) != "festival":
        if not festival:
            raise FixtureError([("$", f"{name} is one CSV sheet: name its festival with --festival SLUG")],
                               Source(name, {}))
        files.append(("festival.csv", f"slug\n{festival}\n".encode()))
    return read_files(name, files)


def _stat(path):
    """What changes when a file is saved: ``(inode, size, modified ns)``, or None if it is not there."""
    try:
        st = path.stat()
    except OSError:
        return None
    return (st.st_ino, st.st_size, st.st_mtime_ns)


class FolderSource:
    """A folder of CSV files, on this machine."""

    local = True
    quiet = FOLDER_QUIET

    def __init__(self, path):
        self.path = Path(path)
        self.name = str(path)
        self.directory = self.path

    def relevant(self, name):
        """Whether a change to the file ``name`` in the folder changes the source."""
        return name.lower().endswith(".csv") and not name.startswith(("~", "."))  # as folder_files reads it

    def signature(self):
        try:
            names = sorted(p.name for p in self.path.iterdir() if self.relevant(p.name))
        except OSError:
            return None
        return tuple((name, _stat(self.path / name)) for name in names)

    def read(self):
        if not self.path.is_dir():
            raise Unsettled(f"{self.name} is not there")
        try:
            for path in self.path.glob("*.csv"):  # one past the cap is not read: said once, until it changes
                size = path.stat().st_size
                if size > cap("IMPORT_MAX_MB") * MB:
                    return _digest(repr(self.signature()).encode()), \
                        (lambda size=size, name=path.name: check_size(self.name, size, name))
            files = folder_files(self.path)
        except OSError as exc:  # a file replaced while it was read: a spreadsheet saving it
            raise Unsettled(f"{self.name} is being saved ({exc.strerror or exc})") from None
        return _digest(*(part for name, content in files for part in (name.encode(), content))), \
            (lambda: read_files(self.name, files))


class FileSource:
    """A workbook, a .zip or a JSON file, on this machine. Of a workbook, only the sheets a
    save changed are read again; the others are taken as last applied (:meth:`remember`)."""

    local = True
    quiet = QUIET

    def __init__(self, path, sheet=None, festival=None):
        self.path = Path(path)
        self.name = str(path)
        self.sheet = sheet or self.path.stem
        self.festival = festival
        self.directory = self.path.parent
        self.loaded = None  # (bytes, Source) last read
        self.baseline = None  # (bytes, Source) last applied

    def remember(self, source):
        """``source`` (one this read) was applied: the next save's unchanged sheets are taken from it."""
        if self.loaded is not None and self.loaded[1] is source:
            self.baseline = self.loaded

    def _load(self, content):
        source = None
        if self.baseline is not None and is_workbook(content):
            sheets = changed_sheets(self.baseline[0], content)
            if sheets is not None:
                source = with_sheets_of(read_workbook(content, self.name, sheets=sheets), self.baseline[1])
        if source is None:
            source = read_content(self.name, content, self.sheet, self.festival)
        self.loaded = (content, source)
        return source

    def relevant(self, name):
        return name == self.path.name

    def signature(self):
        return _stat(self.path)

    def read(self):
        try:
            size = self.path.stat().st_size
            if size > cap("IMPORT_MAX_MB") * MB:  # not read at all: said once, until the file changes
                return _digest(str((size, self.path.stat().st_mtime_ns)).encode()), \
                    (lambda: check_size(self.name, size))
            content = self.path.read_bytes()
        except FileNotFoundError:
            raise Unsettled(f"{self.name} is not there (a spreadsheet may be saving it)") from None
        except OSError as exc:
            raise Waiting(f"{self.name} cannot be read: {exc.strerror or exc}") from None
        return _digest(content), (lambda: self._load(content))


_SHEET_NAMESPACES = {"main": "http://schemas.openxmlformats.org/spreadsheetml/2006/main",
                     "rel": "http://schemas.openxmlformats.org/officeDocument/2006/relationships",
                     "pkg": "http://schemas.openxmlformats.org/package/2006/relationships"}


def _workbook_parts(content):
    """``({sheet title: CRC of its part}, {every other part but docProps/: its CRC})`` of an
    .xlsx file (its zip directory, workbook.xml and its relationships), or None."""
    try:
        with zipfile.ZipFile(io.BytesIO(content)) as archive:
            crcs = {info.filename: info.CRC for info in archive.infolist()}
            book = ElementTree.fromstring(archive.read("xl/workbook.xml"))
            links = ElementTree.fromstring(archive.read("xl/_rels/workbook.xml.rels"))
    except (zipfile.BadZipFile, KeyError, OSError, ElementTree.ParseError):
        return None
    targets = {link.get("Id"): link.get("Target") or ""
               for link in links.iter(f"{{{_SHEET_NAMESPACES['pkg']}}}Relationship")}
    sheets, parts = {}, set()
    for sheet in book.iter(f"{{{_SHEET_NAMESPACES['main']}}}sheet"):
        target = targets.get(sheet.get(f"{{{_SHEET_NAMESPACES['rel']}}}id"), "")
        part = target.lstrip("/") if target.startswith("/") else f"xl/{target}"
        if part not in crcs:
            return None
        sheets[sheet.get("name")] = crcs[part]
        parts.add(part)
    return sheets, {name: crc for name, crc in crcs.items() if name not in parts and not name.startswith("docProps/")}


def changed_sheets(before, after):
    """The titles of the sheets whose part differs between two saves of a workbook, when
    nothing else that reading them depends on changed (shared strings, styles, the list of
    sheets); otherwise None: read it whole."""
    old, new = _workbook_parts(before), _workbook_parts(after)
    if old is None or new is None or old[1] != new[1] or old[0].keys() != new[0].keys():
        return None
    return {title for title, crc in new[0].items() if old[0][title] != crc}


_SECTION = re.compile(r"^\$\.(\w+)")


def _section(path):
    """``results`` of ``$.results[3].score``."""
    match = _SECTION.match(path)
    return match[1] if match else None


def with_sheets_of(source, baseline):
    """``source`` (some sheets of a workbook) with the sections it did not read taken from
    ``baseline`` (the same workbook read whole before): what reading it whole gives."""
    taken = {key for key in baseline.data if key not in source.data}
    for key in taken:
        source.data[key] = baseline.data[key]
        if key in baseline.headers:
            source.headers[key] = baseline.headers[key]
    source.rows.update({path: where for path, where in baseline.rows.items() if _section(path) in taken})
    source.cells.update({path: text for path, text in baseline.cells.items() if _section(path) in taken})
    source.data = {key: source.data[key] for key in [*baseline.data, *source.data] if key in source.data}
    return source


class UrlSource:
    """An ``http(s)`` address: a spreadsheet service's export link, or any web server. It is
    asked with the validators of its last answer (``If-None-Match``, ``If-Modified-Since``):
    an unchanged file answers 304 and is not downloaded again."""

    local = False

    def __init__(self, url, sheet=None, festival=None, timeout=HTTP_TIMEOUT):
        self.url = self.name = url
        self.sheet = sheet or Path(urllib.parse.urlparse(url).path).stem or None
        self.festival = festival
        self.timeout = timeout
        self.validators = {}  # the headers that ask whether the last answer's content changed
        self.last = None  # (digest, content) of the last answer with content

    def read(self):
        headers = {"User-Agent": USER_AGENT}
        if self.last is not None:
            headers.update(self.validators)
        request = urllib.request.Request(self.url, headers=headers)
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as response:
                content = response.read(cap("IMPORT_MAX_MB") * MB + 1)  # past the cap: refused, unread
                validators = {"If-None-Match": response.headers.get("ETag"),
                              "If-Modified-Since": _settled_time(response.headers)}
        except urllib.error.HTTPError as exc:
            if exc.code == 304 and self.last is not None:
                digest, content = self.last
                return digest, (lambda: read_content(self.name, content, self.sheet, self.festival))
            raise Waiting(f"{self.url} answers {exc.code} {exc.reason}") from None
        except urllib.error.URLError as exc:
            reason = getattr(exc.reason, "strerror", None) or exc.reason
            raise Waiting(f"{self.url} does not answer ({reason})") from None
        except (TimeoutError, OSError) as exc:
            raise Waiting(f"{self.url} does not answer ({exc.strerror or exc or 'timed out'})") from None
        digest = _digest(content)
        self.validators = {name: value for name, value in validators.items() if value}
        self.last = (digest, content)
        return digest, (lambda: read_content(self.name, content, self.sheet, self.festival))


def _settled_time(headers):
    """An answer's ``Last-Modified``, when it can say the file did not change since: only if
    the answer was sent a second or more after it (a time in whole seconds cannot tell a
    file saved again within the same second; RFC 9110, 8.8.2.2)."""
    modified, sent = headers.get("Last-Modified"), headers.get("Date")
    try:
        if modified and sent and \
                (parsedate_to_datetime(sent) - parsedate_to_datetime(modified)).total_seconds() >= 1:
            return modified
    except (TypeError, ValueError):
        pass
    return None


def open_source(spec, sheet=None, festival=None, interval=DEFAULT_INTERVAL):
    if re.match(r"(?i)^https?://", spec):
        return UrlSource(spec, sheet, festival, timeout=max(1, min(HTTP_TIMEOUT, interval)))
    if Path(spec).is_dir():
        return FolderSource(spec)
    return FileSource(spec, sheet, festival)


def settled(source):
    """``source.read()`` of a file on this machine once it has been left alone for its
    quiet time (:data:`QUIET`, :data:`FOLDER_QUIET`) and does not change while it is read: a
    spreadsheet writes a CSV file in place, and a half-written one must not be applied (a
    score of 9 for 95). An address is read once."""
    if not getattr(source, "local", False):
        return source.read()
    before = source.signature()
    newest = max((s[2] for s in _stats(before)), default=None)
    if newest is not None:
        age = time.time() - newest / 1e9
        if 0 <= age < source.quiet:
            time.sleep(source.quiet - age)
            before = source.signature()
    digest, load = source.read()
    if source.signature() != before:
        raise Unsettled(f"{source.name} is being saved")
    return digest, load


def _stats(signature):
    """The ``(inode, size, modified ns)`` of a file's or a folder's signature."""
    if signature is None:
        return []
    if isinstance(signature, tuple) and signature and isinstance(signature[0], tuple):
        return [s for _, s in signature if s is not None]
    return [signature]


def network_file_system(path, mountinfo="/proc/self/mountinfo"):
    """The type of the network file system ``path`` is on (``nfs4``, ``cifs``...), or None."""
    try:
        with open(mountinfo, encoding="utf-8", errors="replace") as fh:
            lines = fh.read().splitlines()
    except OSError:
        return None
    target = os.path.realpath(path)
    best, kind = "", None
    for line in lines:
        fields = line.split(" ")
        if " - " not in line or len(fields) < 5:
            continue
        point = re.sub(r"\\([0-7]{3})", lambda m: chr(int(m[1], 8)), fields[4])
        fs_type = line.split(" - ", 1)[1].split(" ")[0]
        inside = target == point or target.startswith(point.rstrip("/") + "/")
        if inside and len(point) >= len(best):
            best, kind = point, fs_type
    return kind if kind in NETWORK_FILE_SYSTEMS else None


class Watch:
    """The file system's events about a local source: ``woke`` is set when a file it is
    made of is written, created, renamed or removed. Its folder is watched, not the file."""

    def __init__(self, source):
        self.source = source
        self.woke = threading.Event()
        self.observer = None

    def start(self):
        """Start watching; return None, or why the source cannot be watched."""
        try:
            from watchdog.events import FileSystemEventHandler
            from watchdog.observers import Observer
        except ImportError:
            return "watchdog is not installed"
        kind = network_file_system(self.source.directory)
        if kind:
            return f"{self.source.directory} is on a network file system ({kind})"
        source, woke = self.source, self.woke

        class Handler(FileSystemEventHandler):
            def on_any_event(self, event):
                # Opening and reading a file (follow's own reads too) says nothing of a save.
                if event.event_type in ("opened", "closed_no_write"):
                    return
                names = {os.path.basename(os.fsdecode(p)) for p in (event.src_path, getattr(event, "dest_path", ""))
                         if p}
                if any(source.relevant(name) for name in names):
                    woke.set()

        observer = Observer()
        try:
            observer.schedule(Handler(), str(self.source.directory), recursive=False)
            observer.start()
        except Exception as exc:  # noqa: BLE001 - no folder, no inotify watches left, ...: look instead
            with contextlib.suppress(Exception):
                observer.stop()
            return f"{self.source.directory} cannot be watched ({exc.strerror if isinstance(exc, OSError) else exc})"
        self.observer = observer
        return None

    def stop(self):
        if self.observer is not None:
            self.observer.stop()
            self.observer.join(timeout=5)
            self.observer = None


def _row_key(row):
    return json.dumps(row, sort_keys=True, default=str)


def _new_rows(before, after):
    """The indexes of the rows of ``after`` that ``before`` does not hold as they are (each
    row of ``before`` stands for one): rows in the same place first, then any others."""
    if after is before:  # a sheet a save left alone (with_sheets_of)
        return []
    unmatched = [i for i, row in enumerate(after) if i >= len(before) or before[i] != row]
    if not unmatched:
        return []
    matched = set(range(min(len(before), len(after)))) - set(unmatched)
    held = collections.Counter(_row_key(row) for i, row in enumerate(before) if i not in matched)
    new = []
    for index in unmatched:
        key = _row_key(after[index])
        if held[key] > 0:
            held[key] -= 1
        else:
            new.append(index)
    return new


def changed_rows(previous, current):
    """``current`` (a :class:`Source`) with only the rows that ``previous`` did not hold as
    they are, or None when it cannot be narrowed (another festival, problems found reading)."""
    if current.problems or previous.problems or previous.data.get("festival") != current.data.get("festival"):
        return None
    data, rows, kept = {}, {}, {}
    for key, value in current.data.items():
        if not isinstance(value, list):
            data[key] = value
            continue
        before = previous.data.get(key, [])
        new = _new_rows(before if isinstance(before, list) else [], value)
        data[key] = [value[index] for index in new]
        for new_index, index in enumerate(new):
            kept[f"$.{key}[{index}]"] = f"$.{key}[{new_index}]"
            if f"$.{key}[{index}]" in current.rows:
                rows[f"$.{key}[{new_index}]"] = current.rows[f"$.{key}[{index}]"]
    cells = {}
    for path, text in current.cells.items():
        row, dot, column = path.partition("].")
        if not dot:
            if "[" not in path:  # the festival's own row
                cells[path] = text
        elif f"{row}]" in kept:
            cells[f"{kept[row + ']']}.{column}"] = text
    rows.update({path: where for path, where in current.rows.items() if "[" not in path})
    return Source(current.name, data, rows=rows, headers=current.headers, problems=[], cells=cells,
                  workbook=current.workbook)


def unwritten_since(summary):
    """Whether the festival is still at the revision ``summary`` (an update's) left it at."""
    from db.source.revisions import current_revision

    return current_revision(summary.festival.id)[0] == summary.revision


class Follower:
    """One source, looked at turn by turn; ``say`` prints one message (one or more lines)."""

    def __init__(self, source, say, apply, narrow=True):
        self.source = source
        self.say = say
        self.apply = apply  # seed.pipeline.write.update.update_source, or a stand-in in tests
        self.narrow = narrow  # leave out the rows applied last time (see changed_rows)
        self.applied = None  # the digest of the content last applied
        self.last = None  # (the Source last applied, its UpdateSummary)
        self.refused = (None, None)  # content that cannot be applied as it is: (digest, why)
        self.unreadable = (None, 0.0)  # (digest, when first seen) of a workbook that does not read yet
        self.unsettled = None  # when the source was first seen mid-save, in this wait
        self.retry_at = None  # when to look again without an event (content settling)
        self.problem = None  # what was said about the wait under way
        self.watch = None
        self.applies = 0  # how many times content was applied (a test counts them)

    def _wait(self, message):
        if message != self.problem:
            self.say(message)
            self.problem = message

    def _refuse(self, digest, why):
        self.refused = (digest, why)
        self._wait(why)

    def _recovered(self, what):
        if self.problem is not None:
            self.say(f"{self.source.name}: {what}")
            self.problem = None

    def _apply(self, content):
        """Apply ``content``, narrowed to the rows changed since the last apply when the
        festival has not been written since; a narrowed update that is refused for its rows
        is applied whole, so problems are found and named as the whole source has them."""
        narrowed = None
        if self.narrow and self.last is not None and isinstance(content, Source) and \
                isinstance(self.last[0], Source):
            narrowed = changed_rows(self.last[0], content)
            if narrowed is not None and not unwritten_since(self.last[1]):
                narrowed = None
        self.applies += 1
        if narrowed is not None:
            try:
                return self.apply(narrowed)
            except FixtureError as exc:
                if isinstance(exc, UnreadableWorkbook):
                    raise
        return self.apply(content)

    def turn(self):
        """Look once; apply what changed. Never raises for a source or a database problem."""
        from peewee import PeeweeException

        from seed.pipeline.write.locking import WriteError
        from seed.pipeline.guard.withdrawals import WithdrawalRefused

        self.retry_at = None
        try:
            digest, load = settled(self.source)
        except Unsettled as waiting:
            now = time.monotonic()
            self.unsettled = self.unsettled or now
            if now - self.unsettled < SETTLE:
                self.retry_at = now + self.source.quiet
                return
            self._wait(f"waiting: {waiting}; nothing was applied")
            return
        except Waiting as waiting:
            self.unsettled = None
            self._wait(f"waiting: {waiting}; nothing was applied")
            return
        self.unsettled = None
        if digest == self.applied:
            self._recovered("back; nothing changed since it was last applied")
            return
        if digest == self.refused[0]:
            self._wait(self.refused[1])  # the same content, the same problem: said again only after another
            return
        try:
            content = load()
            summary = self._apply(content)
        except UnreadableWorkbook as exc:
            now = time.monotonic()
            if self.unreadable[0] != digest:
                self.unreadable = (digest, now)
            if now - self.unreadable[1] < SETTLE:  # caught half written: read again once it settles
                self.retry_at = self.unreadable[1] + SETTLE
                return
            self._refuse(digest, f"waiting: {self.source.name} is not a readable .xlsx workbook yet "
                                 f"({exc.reason}): if it is being saved, it is read again once saved; "
                                 "nothing was applied")
            return
        except FixtureError as exc:
            self._refuse(digest, "\n".join([
                f"waiting: {self.source.name} has {exc.total} problem(s); nothing was applied, the festival "
                "stays as it was:", *(f"  {line}" for line in exc.lines())]))
            return
        except WithdrawalRefused as exc:
            self._refuse(digest, "\n".join([
                f"waiting: {self.source.name} would take {len(exc.withdrawals)} published record(s) away from "
                "the public; nothing was applied, the festival stays as it was (withdraw them row by row with "
                "withdrawn = yes, or put them back):", *(f"  {line}" for line in exc.lines())]))
            return
        except (WriteError, PeeweeException, OSError) as exc:
            message = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
            self._wait(f"waiting: the database cannot be written now ({message}); nothing was applied, "
                       "trying again next turn")
            _reconnect()
            return
        self.applied, self.refused = digest, (None, None)
        self.last = (content, summary)
        if isinstance(self.source, FileSource):
            self.source.remember(content)
        self._recovered("the wait is over")
        self.say(publish_line(self.source.name, summary))

    def start_watching(self, poll=False):
        """Watch a local source (unless ``poll``: its size and time are looked at instead);
        return None, or why it is not watched."""
        if not getattr(self.source, "local", False):
            return None
        if poll:
            return "--poll"
        self.watch = Watch(self.source)
        why_not = self.watch.start()
        if why_not is not None:
            self.watch = None
        return why_not

    def run(self, interval, stop):
        """Turn until ``stop`` (a ``threading.Event``) is set: a local source when it is saved
        (or, when it is not watched, when its size or time changes), and every ``interval``
        seconds; a turn under way finishes first, so a stop never leaves an update half applied."""
        try:
            while not stop.is_set():
                try:
                    self.turn()
                except Exception as exc:  # noqa: BLE001 - one bad turn must not stop result day
                    self._wait(f"waiting: {self.source.name} could not be applied ({type(exc).__name__}: {exc}); "
                               "nothing was applied, trying again next turn")
                self._until_due(interval, stop)
        finally:
            if self.watch is not None:
                self.watch.stop()

    def _until_due(self, interval, stop):
        """Wait until the next turn is due."""
        if not getattr(self.source, "local", False):
            stop.wait(interval)
            return
        now = time.monotonic()
        due = now + interval if self.retry_at is None else min(now + interval, self.retry_at)
        seen, looked = self.source.signature(), now
        woke = self.watch.woke if self.watch is not None else threading.Event()
        while not stop.is_set():
            now = time.monotonic()
            if now >= due:
                return
            if woke.wait(min(due - now, 0.25)):
                self._quiet(woke, stop)
                return
            if self.watch is None and now - looked >= POLL:
                looked = now
                if self.source.signature() != seen:
                    self._quiet(woke, stop)
                    return

    def _quiet(self, woke, stop):
        """Wait until the source has been left alone for its quiet time (one save, one look)."""
        end = time.monotonic() + LONGEST_BURST
        seen = self.source.signature()
        while not stop.is_set() and time.monotonic() < end:
            woke.clear()
            if woke.wait(self.source.quiet):
                continue
            now = self.source.signature()
            if now == seen:
                return
            seen = now


def _reconnect():
    from db.database import database

    try:
        database.close()
    except Exception:  # a broken connection may fail to close; the next turn opens a new one
        pass


def publish_line(name, summary):
    """One line: what the source changed, in the sheet's terms, and the new revision."""
    slug = summary.festival.slug
    if summary.row_diff.empty:
        return f"{name}: no changes; {slug} stays at revision {summary.revision}"
    kinds = "; ".join(summary.row_diff.lines())
    if not summary.row_diff.public:
        return f"{name}: {kinds} (private columns only: no answer changes); {slug} stays at revision {summary.revision}"
    programmes = changed_programmes(summary.row_diff)
    shown = f" (programmes {', '.join(programmes)})" if programmes else ""
    return f"{name}: published {slug} revision {summary.revision}: {kinds}{shown}"


def changed_programmes(row_diff, limit=10):
    """``general HS-LM``: the programmes whose rows or results the update changed."""
    from db.source import models as m

    ids = set(row_diff.rows.get("subFestProgrammes", ()))
    result_ids = list(row_diff.rows.get("results", ()))
    if result_ids:
        ids |= {r.sub_fest_programme_id for r in m.Result.select(m.Result.sub_fest_programme)
                .where(m.Result.id.in_(result_ids))}
    if not ids:
        return []
    rows = (m.SubFestProgramme.select(m.SubFestProgramme.code, m.SubFest.slug)
            .join(m.SubFest)
            .where(m.SubFestProgramme.id.in_(list(ids)))
            .order_by(m.SubFest.slug, m.SubFestProgramme.code)
            .tuples())
    names = [f"{slug} {code}" for code, slug in rows]
    return names[:limit] + ([f"and {len(names) - limit} more"] if len(names) > limit else [])
