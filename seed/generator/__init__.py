"""The generator of the bundled fixture festivals.

The output is deterministic: one ``random.Random(seed)`` per festival and ids from
``uuid5(NAMESPACE, "<festival slug>/<kind>/<n>")``, so running it again writes
byte-identical files. Both festivals hold every kind of record the public API must hide;
each hidden record's name or title contains the word ``HIDDEN`` (and no public record's
does), and every candidate has all private fields filled with easy-to-grep values, so
tests can prove nothing hidden or private leaks.

``build_kalolsavam(scale=N)`` builds a Kalolsavam N times the bundled one (slug
``kalolsavam-2026-xN``) with the same kinds of records, for load tests; it is never bundled.
"""
from .college import build_college_fest
from .kalolsavam import build_kalolsavam
from .output import FESTIVALS, SCHEMA_PATH, dump, schema_text, write_fixtures, write_scaled_kalolsavam, write_schema

__all__ = ["FESTIVALS", "SCHEMA_PATH", "build_college_fest", "build_kalolsavam", "dump", "schema_text",
           "write_fixtures", "write_scaled_kalolsavam", "write_schema"]
