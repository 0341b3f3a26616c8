"""The read stage's entry: any source an import is given, as one festival document."""
import zipfile
from pathlib import Path

from seed.pipeline.read.csv_folder import read_folder, read_zip
from seed.pipeline.read.limits import check_size
from seed.pipeline.read.sources import load_json
from seed.pipeline.read.workbook import is_workbook, read_workbook


def load_source(path):
    """The festival document at ``path``: a ``.json`` file, a folder or a ``.zip`` of CSV
    files, or an ``.xlsx`` workbook.

    Cells that do not parse are in ``Source.problems`` (and left out of the rows), so the
    import can report them with every other problem of the file.
    """
    path = Path(path)
    if path.is_dir():
        return read_folder(path)
    if is_workbook(path):
        return read_workbook(path)
    if zipfile.is_zipfile(path):
        return read_zip(path)
    check_size(str(path), path.stat().st_size)
    return load_json(path)
