"""Generate the bundled fixture festivals: ``python -m seed.generate``.

``python -m seed.generate --scale N --out PATH`` writes only the Kalolsavam, N times its
size (festival slug ``kalolsavam-2026-xN``), for load tests.
"""
import argparse

from . import FIXTURE_DIR
from .generator import write_fixtures, write_scaled_kalolsavam, write_schema


def scale_factor(text):
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be a whole number of 1 or more, not {text!r}")
    return value


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=scale_factor, metavar="N",
                        help="write only the Kalolsavam, N times its size, to --out")
    parser.add_argument("--out", help=f"folder of the fixture files (default {FIXTURE_DIR}); with --scale, "
                                      "the file to write or a folder for kalolsavam-2026-xN.json "
                                      "(default: the current folder)")
    args = parser.parse_args(argv)
    if args.scale:
        path = write_scaled_kalolsavam(args.scale, args.out or ".")
        print(f"wrote {path} ({path.stat().st_size:,} bytes)")
        return
    for path in write_fixtures(args.out or FIXTURE_DIR):
        print(f"wrote {path} ({path.stat().st_size:,} bytes)")
    print(f"wrote {write_schema()}")


if __name__ == "__main__":
    main()
