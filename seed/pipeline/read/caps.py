"""The caps of an import (``IMPORT_MAX_MB``, ``IMPORT_MAX_RATIO``, ``IMPORT_MAX_ROWS``,
``IMPORT_MAX_PROBLEMS``), read from the environment: what they bound is in
``seed/pipeline/read/limits.py``, their documentation in ``app/config.py``."""
import os

DEFAULTS = {"IMPORT_MAX_MB": 100, "IMPORT_MAX_RATIO": 100, "IMPORT_MAX_ROWS": 200_000, "IMPORT_MAX_PROBLEMS": 50}


def cap(name):
    """The setting ``name`` from the environment (the command line checked it), or its default."""
    value = os.environ.get(name, "").strip()
    try:
        return max(1, int(value)) if value else DEFAULTS[name]
    except ValueError:
        return DEFAULTS[name]
