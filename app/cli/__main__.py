"""``python -m app.cli``: the same command as ``festival-api`` (``app/cli/__init__.py``)."""
from . import main

if __name__ == "__main__":
    main()
