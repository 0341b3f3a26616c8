"""How much one import reads at most, checked before a file is read and again while it is.

A festival file is small: the Kalolsavam at 20 times its size is a 28 MB JSON file with at
most 21,226 rows in a section. A file far past that is a mistake or an attack (a 0.9 MB
.zip that unpacks to gigabytes), and must not take the machine's memory with it:

- ``IMPORT_MAX_MB``: the most one file may hold (a JSON file, a CSV file, a sheet or a
  .zip's or workbook's contents, all unpacked), in MB. An archive's own list of its
  entries (its central directory) is checked before anything is unpacked. An entry that
  unpacks to more than that list says stops there: a .zip's CSV files are read through a
  counting stream (:class:`Bounded`), and Python's zipfile, which openpyxl reads a
  workbook with, never unpacks past an entry's listed size (its checksum then fails).
- ``IMPORT_MAX_RATIO``: an entry of 1 MB or more that unpacks to more than this many times
  its packed size (a zip bomb) is refused.
- ``IMPORT_MAX_ROWS``: the most rows of one CSV file or sheet, counted as they are read
  (a CSV file and a sheet are read row by row: openpyxl in read-only mode, the csv module
  over a stream).
- ``IMPORT_MAX_PROBLEMS``: the most problems one refusal lists; the rest are counted
  (``… and N more problem(s)``).

Each cap is a one-line refusal naming the file and the setting (:class:`TooBig`), never a
traceback. The settings are read from the environment (``app/config.py`` documents them).
"""
import io

from seed.pipeline.read.caps import DEFAULTS, cap  # noqa: F401 - DEFAULTS is the settings' defaults
from seed.pipeline.read.problems import FixtureError
from seed.pipeline.read.sources import Source

# Entries smaller than this unpacked are not held to the ratio: a small, repetitive file
# compresses well and is no danger.
RATIO_FLOOR = 1 << 20
MB = 1 << 20


class TooBig(FixtureError):
    """A file past one of the caps: one problem, naming the file, the cap and its setting."""

    def __init__(self, name, what, setting):
        self.setting = setting
        super().__init__([("$", f"{what}, over the cap of {_shown(setting)} ({setting}); nothing was imported")],
                         Source(str(name), {}))


def _shown(setting):
    value = cap(setting)
    return {"IMPORT_MAX_MB": f"{value} MB", "IMPORT_MAX_RATIO": f"{value} times"}.get(setting, f"{value:,}")


def check_size(name, size, what="the file"):
    if size > cap("IMPORT_MAX_MB") * MB:
        raise TooBig(name, f"{what} holds {size / MB:,.1f} MB", "IMPORT_MAX_MB")


def check_archive(name, archive):
    """The entries a zip (a .zip of CSV files, a workbook) says it holds, before any is
    unpacked: their total size and each one's compression ratio."""
    infos = archive.infolist()
    ratio = cap("IMPORT_MAX_RATIO")
    for info in infos:
        if info.file_size >= RATIO_FLOOR and info.file_size > ratio * max(info.compress_size, 1):
            raise TooBig(name, f"{info.filename} unpacks to {info.file_size / max(info.compress_size, 1):,.0f} times "
                               "its packed size", "IMPORT_MAX_RATIO")
    check_size(name, sum(info.file_size for info in infos), "its contents unpacked")


class Bounded(io.RawIOBase):
    """A binary stream that stops with :class:`TooBig` once more than ``IMPORT_MAX_MB`` came
    out of ``stream`` (an archive's entry that unpacks to more than it said)."""

    def __init__(self, stream, name, what):
        self.stream, self.name, self.what = stream, name, what
        self.left = cap("IMPORT_MAX_MB") * MB

    def readable(self):
        return True

    def readinto(self, buffer):
        data = self.stream.read(min(len(buffer), self.left + 1))
        self.left -= len(data)
        if self.left < 0:
            raise TooBig(self.name, f"{self.what} unpacks to more than it says", "IMPORT_MAX_MB")
        buffer[:len(data)] = data
        return len(data)

    def close(self):
        self.stream.close()
        super().close()


def text_stream(stream, name, what):
    """``stream`` (binary) as UTF-8 text (with or without a byte order mark) for the csv module,
    through :class:`Bounded`."""
    return io.TextIOWrapper(io.BufferedReader(Bounded(stream, name, what), 1 << 16), encoding="utf-8-sig",
                            newline="")


def count_rows(rows, name, what):
    """``rows`` (an iterator), stopping with :class:`TooBig` past ``IMPORT_MAX_ROWS``."""
    most = cap("IMPORT_MAX_ROWS")
    for n, row in enumerate(rows, start=1):
        if n > most:
            raise TooBig(name, f"{what} has more than {most:,} rows", "IMPORT_MAX_ROWS")
        yield row
