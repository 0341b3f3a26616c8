"""Generate the bundled fixture festivals: ``python -m seed.generate``."""
import argparse

from . import FIXTURE_DIR
from .generator import write_fixtures, write_schema


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=str(FIXTURE_DIR), help="directory for the fixture files")
    args = parser.parse_args(argv)
    for path in write_fixtures(args.out):
        print(f"wrote {path} ({path.stat().st_size:,} bytes)")
    print(f"wrote {write_schema()}")


if __name__ == "__main__":
    main()
