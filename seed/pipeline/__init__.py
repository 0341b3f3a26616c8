"""The import pipeline: a festival file becomes source rows, stage by stage.

read (``read/``: a file, folder, zip or workbook into one festival document) → check
(``check/``: keys, shape, points) → diff (``diff/``: the document against the stored rows) →
guard (``guard/``: no published record taken away unasked) → write (``write/``: rows in one
transaction, then ``db.compiler`` compiles them). ``follow`` re-imports a source that changes;
``export`` writes a stored festival back as a file.
"""
