"""``festival-api follow SOURCE``: publish by saving the workbook.

Every interval it looks at the source (a CSV folder, a workbook or .zip file, or an
``http(s)`` address of a workbook or a CSV sheet); when its content changed, it applies it
exactly as ``import --update`` does, through :func:`seed.pipeline.write.update.update_source`: the same
checks, the same refusal of a withdrawal of published records, one transaction. A source
that cannot be applied leaves the last good state served and says why once; it says so
again only when the reason changes, and says when it is over.

No Flask here: the command (``app/cli/__init__.py``) gives it a way to print and a stop event.
"""
import hashlib
import io
import json
import re
import time
import urllib.error
import urllib.parse
import urllib.request
import zipfile
from pathlib import Path

from seed.pipeline.read.csv_folder import folder_files, read_files, read_zip, section_key
from seed.pipeline.read.problems import FixtureError
from seed.pipeline.read.sources import Source
from seed.pipeline.read.workbook import UnreadableWorkbook, is_workbook, read_workbook

DEFAULT_INTERVAL = 30
# Longest wait for an address to answer; a shorter interval waits no longer than it.
HTTP_TIMEOUT = 10
USER_AGENT = "festival-api-follow"


class Waiting(Exception):
    """The source cannot be looked at now (it does not answer, it is being saved)."""


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


class FolderSource:
    """A folder of CSV files, on this machine."""

    def __init__(self, path):
        self.path = Path(path)
        self.name = str(path)

    def read(self):
        if not self.path.is_dir():
            raise Waiting(f"{self.name} is not there")
        try:
            files = folder_files(self.path)
        except OSError as exc:  # a file replaced while it was read: a spreadsheet saving it
            raise Waiting(f"{self.name} is being saved ({exc.strerror or exc})") from None
        return _digest(*(part for name, content in files for part in (name.encode(), content))), \
            (lambda: read_files(self.name, files))


class FileSource:
    """A workbook, a .zip or a JSON file, on this machine."""

    def __init__(self, path, sheet=None, festival=None):
        self.path = Path(path)
        self.name = str(path)
        self.sheet = sheet or self.path.stem
        self.festival = festival

    def read(self):
        try:
            content = self.path.read_bytes()
        except FileNotFoundError:
            raise Waiting(f"{self.name} is not there (a spreadsheet may be saving it)") from None
        except OSError as exc:
            raise Waiting(f"{self.name} cannot be read: {exc.strerror or exc}") from None
        return _digest(content), (lambda: read_content(self.name, content, self.sheet, self.festival))


class UrlSource:
    """An ``http(s)`` address: a spreadsheet service's export link, or any web server."""

    def __init__(self, url, sheet=None, festival=None, timeout=HTTP_TIMEOUT):
        self.url = self.name = url
        self.sheet = sheet or Path(urllib.parse.urlparse(url).path).stem or None
        self.festival = festival
        self.timeout = timeout

    def read(self):
        request = urllib.request.Request(self.url, headers={"User-Agent": USER_AGENT})
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as response:
                content = response.read()
        except urllib.error.HTTPError as exc:
            raise Waiting(f"{self.url} answers {exc.code} {exc.reason}") from None
        except urllib.error.URLError as exc:
            reason = getattr(exc.reason, "strerror", None) or exc.reason
            raise Waiting(f"{self.url} does not answer ({reason})") from None
        except (TimeoutError, OSError) as exc:
            raise Waiting(f"{self.url} does not answer ({exc.strerror or exc or 'timed out'})") from None
        return _digest(content), (lambda: read_content(self.name, content, self.sheet, self.festival))


def open_source(spec, sheet=None, festival=None, interval=DEFAULT_INTERVAL):
    if re.match(r"(?i)^https?://", spec):
        return UrlSource(spec, sheet, festival, timeout=max(1, min(HTTP_TIMEOUT, interval)))
    if Path(spec).is_dir():
        return FolderSource(spec)
    return FileSource(spec, sheet, festival)


def settled(source, pause):
    """``source.read()`` of a file on this machine, once it reads the same twice ``pause``
    apart: a spreadsheet writes a CSV file in place, and a half-written one must not be
    applied (a score of 9 for 95). An address is read once."""
    digest, load = source.read()
    if isinstance(source, UrlSource):
        return digest, load
    time.sleep(pause)
    again, load = source.read()
    if again != digest:
        raise Waiting(f"{source.name} is being saved")
    return digest, load


class Follower:
    """One source, looked at turn by turn; ``say`` prints one message (one or more lines)."""

    def __init__(self, source, say, apply, pause=0.5):
        self.source = source
        self.say = say
        self.apply = apply  # seed.pipeline.write.update.update_source, or a stand-in in tests
        self.pause = pause
        self.applied = None  # the digest of the content last applied
        self.refused = (None, None)  # content that cannot be applied as it is: (digest, why)
        self.problem = None  # what was said about the wait under way

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

    def turn(self):
        """Look once; apply what changed. Never raises for a source or a database problem."""
        from peewee import PeeweeException

        from seed.pipeline.write.locking import WriteError
        from seed.pipeline.guard.withdrawals import WithdrawalRefused

        try:
            digest, load = settled(self.source, self.pause)
        except Waiting as waiting:
            self._wait(f"waiting: {waiting}; nothing was applied")
            return
        if digest == self.applied:
            self._recovered("back; nothing changed since it was last applied")
            return
        if digest == self.refused[0]:
            self._wait(self.refused[1])  # the same content, the same problem: said again only after another
            return
        try:
            summary = self.apply(load())
        except UnreadableWorkbook as exc:
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
        self._recovered("the wait is over")
        self.say(publish_line(self.source.name, summary))

    def run(self, interval, stop):
        """Turn every ``interval`` seconds until ``stop`` (a ``threading.Event``) is set; a
        turn under way finishes first, so a stop never leaves an update half applied."""
        while not stop.is_set():
            try:
                self.turn()
            except Exception as exc:  # noqa: BLE001 - one bad turn must not stop result day
                self._wait(f"waiting: {self.source.name} could not be applied ({type(exc).__name__}: {exc}); "
                           "nothing was applied, trying again next turn")
            stop.wait(interval)


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
