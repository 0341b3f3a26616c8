"""The import pipeline: a festival file becomes source rows, stage by stage.

read (``read/``: a file, folder, zip or workbook into one festival document) → check
(``check/``: keys, shape, points) → diff (``diff/``: the document against the stored rows) →
guard (``guard/``: no published record taken away unasked) → write (``write/``: rows in one
transaction, then ``db.compiler`` compiles them). ``follow`` re-imports a source that changes;
``export`` writes a stored festival back as a file.

Each stage's entry: ``read.load.load_source``; ``check.check_rows`` (the checks every
import and update make); ``diff.row_diff.diff_rows``; ``guard.withdrawals.guarded_write``;
``write.importer.import_file`` and ``write.update.update_file`` (what they share:
``write.rows``).
"""
